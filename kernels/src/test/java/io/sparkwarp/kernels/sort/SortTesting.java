package io.sparkwarp.kernels.sort;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.BatchConcatenator;
import io.sparkwarp.kernels.batch.BatchSlicer;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.testing.RandomVectors;
import io.sparkwarp.kernels.testing.RowIds;
import io.sparkwarp.kernels.testing.VectorAssertions;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseIntVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/** Random sort inputs and Spark's ordering written directly as a Comparator: the reference of the sort tests. */
final class SortTesting {
  private SortTesting() {}

  /** Every device type, decimals of both widths (a 128-bit one at the largest precision too). */
  static List<DeviceType> types() {
    List<DeviceType> types = new ArrayList<>(List.of(RandomVectors.allTypes()));
    types.add(DeviceType.decimal(30, 4));
    types.add(DeviceType.decimal(38, 10));
    return types;
  }

  /**
   * A random column with ties: values drawn from a few (or, at random, up to {@code rows}) distinct random values of
   * RandomVectors (NaN, -0.0, extremes, multi-byte strings), short strings so that prefixes are common; no nulls, a
   * few, half or only nulls.
   */
  static FieldVector randomKeyColumn(DeviceType type, int rows, Random rnd, BufferAllocator allocator) {
    int[] distinctChoices = {1, 3, 20, Math.max(1, rows)};
    int distinct = distinctChoices[rnd.nextInt(distinctChoices.length)];
    double[] nullFractions = {0, 0.1, 0.5, 1};
    double nulls = nullFractions[rnd.nextInt(nullFractions.length)];
    return keyColumn(type, rows, distinct, nulls, rnd, allocator);
  }

  /** {@code rows} values drawn from {@code distinct} random ones of RandomVectors, a fraction {@code nulls} null. */
  static FieldVector keyColumn(DeviceType type, int rows, int distinct, double nulls, Random rnd,
      BufferAllocator allocator) {
    int maxStringBytes = rnd.nextBoolean() ? 3 : 12;
    try (FieldVector values = RandomVectors.random(type, distinct, nulls, maxStringBytes, rnd, allocator)) {
      return RowIds.reorder(values, IntStream.range(0, rows).map(i -> rnd.nextInt(distinct)).toArray());
    }
  }

  /**
   * An INT, DATE, LONG or TIMESTAMP column of a narrow range: base + 16 * (0 to 4999), so that the low 4 bits and
   * the high ones tie and a key's varying bits sit mid-word; a fraction {@code nulls} null.
   */
  static FieldVector narrowColumn(DeviceType type, int rows, double nulls, Random rnd, BufferAllocator allocator) {
    long base = type.width() == 4 ? rnd.nextInt(1 << 24) - (1 << 23) : rnd.nextLong() >> 8;
    FieldVector v = new Field("narrow", FieldType.nullable(type.toArrow()), null).createVector(allocator);
    v.setInitialCapacity(rows);
    v.allocateNew();
    for (int i = 0; i < rows; i++) {
      long value = base + 16L * rnd.nextInt(5000);
      if (rnd.nextDouble() < nulls) {
        v.setNull(i);
      } else if (v instanceof IntVector x) {
        x.set(i, (int) value);
      } else if (v instanceof DateDayVector x) {
        x.set(i, (int) value);
      } else if (v instanceof BigIntVector x) {
        x.set(i, value);
      } else {
        ((TimeStampVector) v).set(i, value);
      }
    }
    v.setValueCount(rows);
    return v;
  }

  /** The fixed-width types, every one whose keys can pack into one 64-bit word. */
  static List<DeviceType> fixedWidthTypes() {
    return List.of(DeviceType.BOOLEAN, DeviceType.BYTE, DeviceType.SHORT, DeviceType.INT, DeviceType.LONG,
        DeviceType.FLOAT, DeviceType.DOUBLE, DeviceType.DATE, DeviceType.timestamp("UTC"), DeviceType.decimal(18, 4));
  }

  /** Random keys over {@code columns}: one to {@code maxKeys} of them, random directions and null placements. */
  static List<SortKey> randomKeys(int columns, int maxKeys, Random rnd) {
    List<SortKey> keys = new ArrayList<>();
    int count = 1 + rnd.nextInt(maxKeys);
    for (int k = 0; k < count; k++) keys.add(new SortKey(rnd.nextInt(columns), rnd.nextBoolean(), rnd.nextBoolean()));
    return keys;
  }

  /** The row indices of {@code columns} sorted by {@code keys} with Spark's ordering, stably (List.sort is). */
  static int[] expectedOrder(List<FieldVector> columns, List<SortKey> keys, int rows) {
    List<Integer> order = new ArrayList<>(IntStream.range(0, rows).boxed().toList());
    order.sort(comparator(columns, keys));
    return order.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Spark's SortOrder over the rows of {@code columns}, the first key most significant. */
  static Comparator<Integer> comparator(List<FieldVector> columns, List<SortKey> keys) {
    return (a, b) -> {
      for (SortKey key : keys) {
        int c = compare(columns.get(key.column()), key, a, b);
        if (c != 0) return c;
      }
      return 0;
    };
  }

  /** Nulls placed by nullsFirst alone; values in the key's direction. */
  private static int compare(FieldVector v, SortKey key, int a, int b) {
    boolean nullA = v.isNull(a);
    boolean nullB = v.isNull(b);
    if (nullA || nullB) {
      if (nullA && nullB) return 0;
      return nullA == key.nullsFirst() ? -1 : 1;
    }
    int c = compareValues(v, a, b);
    return key.ascending() ? c : -c;
  }

  /**
   * Spark's ordering of two valid values: booleans false first; integers, dates and timestamps signed; decimals by
   * value; floats as SQLOrderingUtil.compareFloats/compareDoubles; strings and binaries as unsigned bytes.
   */
  private static int compareValues(FieldVector v, int a, int b) {
    if (v instanceof BitVector bits) return Integer.compare(bits.get(a), bits.get(b));
    if (v instanceof Float4Vector f) return f.get(a) == f.get(b) ? 0 : Float.compare(f.get(a), f.get(b));
    if (v instanceof Float8Vector d) return d.get(a) == d.get(b) ? 0 : Double.compare(d.get(a), d.get(b));
    if (v instanceof DecimalVector d) return d.getObject(a).compareTo(d.getObject(b));
    if (v instanceof TimeStampVector t) return Long.compare(t.get(a), t.get(b));
    if (v instanceof DateDayVector d) return Integer.compare(d.get(a), d.get(b));
    if (v instanceof BaseIntVector i) return Long.compare(i.getValueAsLong(a), i.getValueAsLong(b));
    if (v instanceof VarCharVector s) return Arrays.compareUnsigned(s.get(a), s.get(b));
    if (v instanceof VarBinaryVector s) return Arrays.compareUnsigned(s.get(a), s.get(b));
    throw new IllegalArgumentException("no ordering for " + v.getField());
  }

  /** "col 3 (string) desc nulls first, ..." for failure messages. */
  static String describe(List<FieldVector> columns, List<SortKey> keys) {
    return keys.stream().map(k -> "col " + k.column() + " (" + columns.get(k.column()).getField().getType() + ") "
        + (k.ascending() ? "asc" : "desc") + " nulls " + (k.nullsFirst() ? "first" : "last")).toList().toString();
  }

  static List<String> names(List<FieldVector> columns) {
    return columns.stream().map(FieldVector::getName).toList();
  }

  /** The order of {@code batch} by {@code keys} on {@code backend}, read back. */
  static int[] order(Backend backend, DeviceBatch batch, List<SortKey> keys, DeviceStream stream) {
    try (DeviceBuffer order = DeviceSort.order(backend, batch, keys, stream)) {
      return RowIds.download(backend, order, batch.rowCount(), stream);
    }
  }

  /** A sorted run held as device pieces, handed out front to back. */
  private static final class PiecesRun implements RunMerge.Run, AutoCloseable {
    private final ArrayDeque<DeviceBatch> pieces = new ArrayDeque<>();

    @Override
    public boolean hasMore() {
      return !pieces.isEmpty();
    }

    @Override
    public DeviceBatch next() {
      return pieces.poll();
    }

    @Override
    public void close() {
      Closeables.closeAll(new ArrayList<>(pieces));
    }
  }

  /**
   * {@code batch} cut into up to {@code runCount} runs of random lengths, each sorted by DeviceSort and served in
   * pieces of 1 to {@code maxPiece} rows, merged by RunMerge: one new batch (asserting that no round is empty).
   */
  static DeviceBatch mergedInRuns(Backend backend, DeviceBatch batch, List<SortKey> keys, int runCount,
      int maxPiece, Random rnd, DeviceStream stream) {
    int rows = batch.rowCount();
    List<PiecesRun> runs = new ArrayList<>();
    List<DeviceBatch> out = new ArrayList<>();
    try {
      int start = 0;
      for (int r = 0; r < runCount && start < rows; r++) {
        int length = r == runCount - 1 ? rows - start : 1 + rnd.nextInt(Math.max(1, 2 * rows / runCount));
        length = Math.min(length, rows - start);
        PiecesRun run = new PiecesRun();
        runs.add(run);
        try (DeviceBatch chunk = BatchSlicer.slice(backend, batch, start, length, stream);
            DeviceBatch sorted = DeviceSort.sort(backend, chunk, keys, stream)) {
          for (int at = 0; at < length; ) {
            int piece = Math.min(length - at, 1 + rnd.nextInt(maxPiece));
            run.pieces.add(BatchSlicer.slice(backend, sorted, at, piece, stream));
            at += piece;
          }
        }
        start += length;
      }
      try (RunMerge merge = new RunMerge(backend, runs, keys, stream)) {
        for (DeviceBatch b = merge.next(); b != null; b = merge.next()) {
          out.add(b);
          assertTrue(b.rowCount() > 0, "an empty round");
        }
      }
      return out.isEmpty() ? DeviceSort.sort(backend, batch, keys, stream)
          : BatchConcatenator.concat(backend, out, stream);
    } finally {
      Closeables.closeAll(out);
      Closeables.closeAll(runs);
    }
  }

  /**
   * Partitions {@code batch} (whose columns are {@code columns}) by ranges of {@code keys} on {@code backend} and
   * asserts Spark's RangePartitioner placement: up to {@code maxBounds} distinct bounds taken from the rows at even
   * steps of their order, each row in the partition of the bounds strictly below it, rows in input order within a
   * partition.
   */
  static void assertRangePartitioning(Backend backend, List<FieldVector> columns, DeviceBatch batch,
      List<SortKey> keys, int maxBounds, BufferAllocator allocator, DeviceStream stream, String what) {
    int rows = batch.rowCount();
    Comparator<Integer> order = comparator(columns, keys);
    int[] sorted = expectedOrder(columns, keys, rows);
    List<Integer> bounds = new ArrayList<>();
    for (int b = 1; b <= maxBounds && rows > 0; b++) {
      int candidate = sorted[(int) ((long) b * (rows - 1) / (maxBounds + 1))];
      if (bounds.isEmpty() || order.compare(bounds.get(bounds.size() - 1), candidate) < 0) bounds.add(candidate);
    }
    int[] ids = new int[rows];
    for (int r = 0; r < rows; r++) {
      int below = 0;  // the bounds increase: search for the first one at or above the row
      int above = bounds.size();
      while (below < above) {
        int mid = (below + above) >>> 1;
        if (order.compare(r, bounds.get(mid)) > 0) below = mid + 1; else above = mid;
      }
      ids[r] = below;
    }
    int[] expected = IntStream.range(0, rows).boxed().sorted(Comparator.comparingInt(r -> ids[r]))
        .mapToInt(Integer::intValue).toArray();
    int[] starts = new int[bounds.size() + 2];
    for (int id : ids) starts[id + 1]++;
    for (int p = 0; p < bounds.size() + 1; p++) starts[p + 1] += starts[p];
    List<io.sparkwarp.kernels.batch.DeviceColumn> keyColumns = keys.stream().map(k -> batch.column(k.column()))
        .toList();
    try (DeviceBuffer boundRows = RowIds.upload(backend, bounds.stream().mapToInt(Integer::intValue).toArray(),
        stream);
        DeviceBatch boundBatch = backend.joins().gather(new DeviceBatch(keyColumns, rows), boundRows, bounds.size(),
            stream);
        io.sparkwarp.kernels.partition.PartitionedBatch partitioned =
            io.sparkwarp.kernels.partition.PartitionedBatch.range(backend, batch, keys, boundBatch, stream)) {
      org.junit.jupiter.api.Assertions.assertArrayEquals(starts, partitioned.starts(), what + ": starts of "
          + bounds.size() + " bounds");
      assertRows(columns, expected, backend, partitioned.batch(), allocator, stream, what);
    }
  }

  /** Asserts that the rows of {@code actual} (closed here) are rows {@code rows} of {@code input}, column by column. */
  static void assertRows(List<FieldVector> input, int[] rows, Backend backend, DeviceBatch actual,
      BufferAllocator allocator, DeviceStream stream, String what) {
    List<FieldVector> downloaded;
    try (actual; ArrowDownload download = ArrowDownload.begin(backend, actual, names(input), allocator, stream)) {
      downloaded = download.complete();
    }
    try {
      for (int c = 0; c < input.size(); c++) {
        try (FieldVector expected = RowIds.reorder(input.get(c), rows)) {
          VectorAssertions.assertVectorEquals(expected, downloaded.get(c), what + ", column " + c);
        }
      }
    } finally {
      Closeables.closeAll(downloaded);
    }
  }
}
