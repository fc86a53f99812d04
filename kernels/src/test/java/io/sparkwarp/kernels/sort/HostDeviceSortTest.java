package io.sparkwarp.kernels.sort;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.testing.BackendTestBase;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

/**
 * DeviceSort on the host backend against Spark's ordering written as a Comparator: random batches with ties of every
 * key type, one to three keys in both directions and null placements, the order, the sorted batch and top-N; keys
 * packed into one word (every fixed-width type, narrow ranges, nulls none, some or all) and the plan of that word; and
 * the cases the reference itself must get right (NaN, -0.0, prefixes, high bytes) spelled out.
 */
class HostDeviceSortTest extends BackendTestBase {
  private final Random rnd = new Random();

  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  @Test
  void rangePartitionsAreSparks() {
    List<DeviceType> types = SortTesting.types();
    for (int rows : new int[] {0, 1, 33, 3000}) {
      for (int trial = 0; trial < 25; trial++) {
        List<FieldVector> columns = new ArrayList<>();
        try {
          for (int c = 0; c < 3; c++) {
            columns.add(SortTesting.randomKeyColumn(types.get(rnd.nextInt(types.size())), rows, rnd, pageable));
          }
          List<SortKey> keys = SortTesting.randomKeys(columns.size(), 3, rnd);
          int maxBounds = new int[] {0, 1, 7, 199}[trial % 4];
          try (DeviceBatch batch = ArrowUpload.upload(backend, columns, stream)) {
            SortTesting.assertRangePartitioning(backend, columns, batch, keys, maxBounds, pageable, stream,
                rows + " rows by " + SortTesting.describe(columns, keys));
          }
        } finally {
          Closeables.closeAll(columns);
        }
      }
    }
  }

  @Test
  void orderIsSparksStableOrder() {
    List<DeviceType> types = SortTesting.types();
    for (int rows : new int[] {0, 1, 33, 5000}) {
      for (int trial = 0; trial < 40; trial++) {
        List<FieldVector> columns = new ArrayList<>();
        try {
          for (int c = 0; c < 3; c++) {
            columns.add(SortTesting.randomKeyColumn(types.get(rnd.nextInt(types.size())), rows, rnd, pageable));
          }
          List<SortKey> keys = SortTesting.randomKeys(columns.size(), 3, rnd);
          try (DeviceBatch batch = ArrowUpload.upload(backend, columns, stream)) {
            assertArrayEquals(SortTesting.expectedOrder(columns, keys, rows),
                SortTesting.order(backend, batch, keys, stream), rows + " rows by " + SortTesting.describe(columns,
                    keys));
          }
        } finally {
          Closeables.closeAll(columns);
        }
      }
    }
  }

  @Test
  void sortAndTopGatherEveryColumnInThatOrder() {
    List<DeviceType> types = SortTesting.types();
    for (int rows : new int[] {0, 1, 33, 5000}) {
      List<FieldVector> columns = new ArrayList<>();
      try {
        for (DeviceType type : types) columns.add(SortTesting.randomKeyColumn(type, rows, rnd, pageable));
        try (DeviceBatch batch = ArrowUpload.upload(backend, columns, stream)) {
          for (int trial = 0; trial < 5; trial++) {
            List<SortKey> keys = SortTesting.randomKeys(columns.size(), 3, rnd);
            String what = rows + " rows by " + SortTesting.describe(columns, keys);
            int[] expected = SortTesting.expectedOrder(columns, keys, rows);
            SortTesting.assertRows(columns, expected, backend, DeviceSort.sort(backend, batch, keys, stream),
                pageable, stream, what);
            for (int limit : new int[] {0, 1, 10, rows + 7}) {
              SortTesting.assertRows(columns, Arrays.copyOf(expected, Math.min(limit, rows)), backend,
                  DeviceSort.top(backend, batch, keys, limit, stream), pageable, stream, what + ", top " + limit);
            }
          }
        }
      } finally {
        Closeables.closeAll(columns);
      }
    }
  }

  /**
   * The pair passes (PackedKeys): every fixed-width type and narrow ranges of ints and timestamps, with ties, no nulls,
   * some or only nulls, one key in both directions and null placements, and several keys; the order is Spark's
   * stable order, and single keys and small ones together do pack (unless every row ties).
   */
  @Test
  void packedKeysSortLikeSpark() {
    List<DeviceType> types = SortTesting.fixedWidthTypes();
    for (int rows : new int[] {0, 1, 33, 5000}) {
      for (double nulls : new double[] {0, 0.2, 1}) {
        List<FieldVector> columns = new ArrayList<>();
        try {
          for (DeviceType type : types) {
            columns.add(SortTesting.keyColumn(type, rows, rnd.nextBoolean() ? 3 : Math.max(1, rows), nulls, rnd,
                pageable));
          }
          columns.add(SortTesting.narrowColumn(DeviceType.INT, rows, nulls, rnd, pageable));
          columns.add(SortTesting.narrowColumn(DeviceType.timestamp(null), rows, nulls, rnd, pageable));
          try (DeviceBatch batch = ArrowUpload.upload(backend, columns, stream)) {
            for (int c = 0; c < columns.size(); c++) {
              for (boolean ascending : new boolean[] {true, false}) {
                for (boolean nullsFirst : new boolean[] {true, false}) {
                  assertPackedOrder(columns, batch, List.of(new SortKey(c, ascending, nullsFirst)), true);
                }
              }
            }
            // booleans, bytes and shorts: at most 2 + 9 + 17 bits
            assertPackedOrder(columns, batch, List.of(new SortKey(0, false, true), new SortKey(1, true, false),
                new SortKey(2, false, false)), true);
            for (int trial = 0; trial < 10; trial++) {
              assertPackedOrder(columns, batch, SortTesting.randomKeys(columns.size(), 3, rnd), false);
            }
          }
        } finally {
          Closeables.closeAll(columns);
        }
      }
    }
  }

  /**
   * The word's plan: the varying bits of a key and its null flag above them, the null pass of a key of 64 varying
   * bits with nulls, no word for strings, 128-bit decimals, more than 64 bits or fields; passes that skip tied bits.
   */
  @Test
  void packedKeysPlanOnlyVaryingBits() {
    Integer[] ints = {5, 7, null, 21, 5};
    Long[] longs = {Long.MIN_VALUE, null, Long.MAX_VALUE, 0L, -1L};
    List<FieldVector> columns = new ArrayList<>(List.of(
        vector(DeviceType.INT, ints), vector(DeviceType.LONG, longs),
        SortTesting.keyColumn(DeviceType.STRING, 5, 5, 0, rnd, pageable),
        SortTesting.keyColumn(DeviceType.decimal(30, 2), 5, 5, 0, rnd, pageable)));
    for (int b = 0; b < 9; b++) {
      BitVector bits = new BitVector("b" + b, pageable);
      bits.allocateNew(5);
      for (int i = 0; i < 5; i++) bits.set(i, (i + b) % 2);
      bits.setValueCount(5);
      columns.add(bits);
    }
    try (DeviceBatch batch = ArrowUpload.upload(backend, columns, stream)) {
      // 5, 7, 21: bits 1 and 4 of the value vary, so bits 1 to 4 make the field; the null flag goes above them
      PackedKeys ints4 = plan(batch, List.of(new SortKey(0, false, true)));
      assertEquals(List.of(new PackedKeys.Field(batch.column(0), true, true, 1, 4, true, 0, true)), ints4.fields());
      assertEquals(0b11001L, ints4.varying());
      assertEquals(List.of(new PackedKeys.Pass(0, 5)), ints4.passes());
      assertNull(ints4.nullPass());
      PackedKeys wide = plan(batch, List.of(new SortKey(1, true, false)));
      assertEquals(-1L, wide.varying());
      assertEquals(new SortKey(1, true, false), wide.nullPass());
      assertEquals(8, wide.passes().size());
      // at full width, planned from the null counts alone: the ints' 32 bits and their null flag, the first pass
      // over bits 0 to 7 (which the histograms show to vary, so the sort keeps it)
      List<SortKey> intKey = List.of(new SortKey(0, false, true));
      assertTrue(PackedKeys.fitAtFullWidth(batch, intKey));
      PackedKeys full = PackedKeys.plan(batch, intKey, KeyStatistics.nullsOnly(backend, batch, intKey, stream));
      assertEquals(List.of(new PackedKeys.Field(batch.column(0), true, true, 0, 32, true, 0, true)), full.fields());
      assertEquals(5, full.passes().size());
      assertFalse(PackedKeys.fitAtFullWidth(batch, List.of(new SortKey(0, true, true), new SortKey(1, true, true))));
      assertFalse(PackedKeys.fitAtFullWidth(batch, List.of(new SortKey(2, true, true))));
      assertFalse(PackedKeys.fitAtFullWidth(batch, List.of(new SortKey(3, true, true))));
      // the ints' field below the longs' 64 bits does not fit, nor the longs' flag below the first key
      assertNull(plan(batch, List.of(new SortKey(1, true, true), new SortKey(0, true, true))));
      assertNull(plan(batch, List.of(new SortKey(0, true, true), new SortKey(1, true, true))));
      assertNull(plan(batch, List.of(new SortKey(2, true, true))));
      assertNull(plan(batch, List.of(new SortKey(3, true, true))));
      List<SortKey> eight = new ArrayList<>();
      for (int b = 0; b < 8; b++) eight.add(new SortKey(4 + b, b % 2 == 0, true));
      assertEquals(8, plan(batch, eight).fields().size());
      // bits without nulls: no null flag, and packing them reads no validity bits
      assertEquals(List.of(new PackedKeys.Field(batch.column(4), true, true, 0, 1, false, 0, false)),
          plan(batch, List.of(new SortKey(4, false, true))).fields());
      eight.add(new SortKey(12, true, true));
      assertNull(plan(batch, eight));
      for (List<SortKey> keys : List.of(List.of(new SortKey(0, true, false)), eight)) {
        assertOrder(columns, keys, batch, SortTesting.expectedOrder(columns, keys, batch.rowCount()));
      }
    } finally {
      Closeables.closeAll(columns);
    }
    assertEquals(List.of(new PackedKeys.Pass(0, 1), new PackedKeys.Pass(8, 8), new PackedKeys.Pass(44, 4),
        new PackedKeys.Pass(63, 1)), new PackedKeys(List.of(), 0x8000F0000000FF01L, null).passes());
  }

  /** The order of {@code keys} is Spark's; with {@code packs}, the keys pack into one word unless every row ties. */
  private void assertPackedOrder(List<FieldVector> columns, DeviceBatch batch, List<SortKey> keys, boolean packs) {
    int rows = batch.rowCount();
    String what = rows + " rows by " + SortTesting.describe(columns, keys);
    int[] expected = SortTesting.expectedOrder(columns, keys, rows);
    assertArrayEquals(expected, SortTesting.order(backend, batch, keys, stream), what);
    if (packs && rows > 0) {
      Comparator<Integer> order = SortTesting.comparator(columns, keys);
      boolean allTie = IntStream.range(1, rows).allMatch(j -> order.compare(expected[j - 1], expected[j]) == 0);
      assertEquals(!allTie, plan(batch, keys) != null, what + ": packed");
    }
  }

  private PackedKeys plan(DeviceBatch batch, List<SortKey> keys) {
    return PackedKeys.plan(batch, keys, KeyStatistics.read(backend, batch, keys, stream));
  }

  /** A nullable vector of {@code type} (INT or LONG) holding {@code values}. */
  private FieldVector vector(DeviceType type, Number[] values) {
    FieldVector v = new Field("v", FieldType.nullable(type.toArrow()), null).createVector(pageable);
    v.setInitialCapacity(values.length);
    v.allocateNew();
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) v.setNull(i);
      else if (v instanceof IntVector x) x.set(i, values[i].intValue());
      else ((BigIntVector) v).set(i, values[i].longValue());
    }
    v.setValueCount(values.length);
    return v;
  }

  /** SQLOrderingUtil: -0.0 equals 0.0 (so they keep their input order), every NaN equals every NaN, above +Inf. */
  @Test
  void floatingPointFollowsSqlOrderingUtil() {
    double[] values = {1.0, Double.NaN, -0.0, Double.POSITIVE_INFINITY, 0.0, Double.longBitsToDouble(0x7ff8000000000001L),
        Double.NEGATIVE_INFINITY, 0, -1.0, Double.longBitsToDouble(0xfff8000000000000L)};
    int nullRow = 7;
    Float8Vector doubles = new Float8Vector(new Field("d", FieldType.nullable(DeviceType.DOUBLE.toArrow()), null),
        pageable);
    Float4Vector floats = new Float4Vector(new Field("f", FieldType.nullable(DeviceType.FLOAT.toArrow()), null),
        pageable);
    doubles.allocateNew(values.length);
    floats.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      if (i == nullRow) {
        doubles.setNull(i);
        floats.setNull(i);
      } else {
        doubles.set(i, values[i]);
        floats.set(i, (float) values[i]);
      }
    }
    doubles.setValueCount(values.length);
    floats.setValueCount(values.length);
    List<FieldVector> columns = List.of(doubles, floats);
    try (DeviceBatch batch = ArrowUpload.upload(backend, columns, stream)) {
      int[] ascendingNullsFirst = {7, 6, 8, 2, 4, 0, 3, 1, 5, 9};
      int[] descendingNullsLast = {1, 5, 9, 3, 0, 2, 4, 8, 6, 7};
      for (int c = 0; c < 2; c++) {
        assertOrder(columns, List.of(new SortKey(c, true, true)), batch, ascendingNullsFirst);
        assertOrder(columns, List.of(new SortKey(c, false, false)), batch, descendingNullsLast);
      }
    } finally {
      Closeables.closeAll(columns);
    }
  }

  /** Unsigned bytes (a multi-byte character above ASCII), a proper prefix first, nulls placed on their own. */
  @Test
  void stringsAreUnsignedBytesPrefixesFirst() {
    String[] values = {"b", "", "ab", "a", null, "a\u0000", "ü", "a", "Z"};
    VarCharVector strings = new VarCharVector(new Field("s", FieldType.nullable(DeviceType.STRING.toArrow()), null),
        pageable);
    strings.allocateNew();
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) strings.setNull(i);
      else strings.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
    }
    strings.setValueCount(values.length);
    List<FieldVector> columns = List.of(strings);
    try (DeviceBatch batch = ArrowUpload.upload(backend, columns, stream)) {
      assertOrder(columns, List.of(new SortKey(0, true, false)), batch, new int[] {1, 8, 3, 7, 5, 2, 0, 6, 4});
      assertOrder(columns, List.of(new SortKey(0, false, true)), batch, new int[] {4, 6, 0, 2, 5, 3, 7, 8, 1});
    } finally {
      Closeables.closeAll(columns);
    }
  }

  @Test
  void rejectsBadArguments() {
    List<FieldVector> columns = List.of(SortTesting.randomKeyColumn(DeviceType.INT, 10, rnd, pageable));
    try (DeviceBatch batch = ArrowUpload.upload(backend, columns, stream)) {
      assertThrows(IllegalArgumentException.class, () -> DeviceSort.order(backend, batch, List.of(), stream));
      assertThrows(IllegalArgumentException.class,
          () -> DeviceSort.order(backend, batch, List.of(new SortKey(1, true, true)), stream));
      assertThrows(IllegalArgumentException.class,
          () -> DeviceSort.top(backend, batch, List.of(new SortKey(0, true, true)), -1, stream));
    } finally {
      Closeables.closeAll(columns);
    }
  }

  /** Both the reference and the device sort give {@code expected}. */
  private void assertOrder(List<FieldVector> columns, List<SortKey> keys, DeviceBatch batch, int[] expected) {
    String what = SortTesting.describe(columns, keys);
    assertArrayEquals(expected, SortTesting.expectedOrder(columns, keys, batch.rowCount()), "reference, " + what);
    assertArrayEquals(expected, SortTesting.order(backend, batch, keys, stream), what);
  }
}
