package io.sparkwarp.kernels.sort;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.testing.BackendTestBase;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.api.Test;

/**
 * DeviceSort on the host backend against Spark's ordering written as a Comparator: random batches with ties of every
 * key type, one to three keys in both directions and null placements, the order, the sorted batch and top-N; and
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
