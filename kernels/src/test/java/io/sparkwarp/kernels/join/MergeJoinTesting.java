package io.sparkwarp.kernels.join;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.DeviceReadback;
import io.sparkwarp.kernels.sort.DeviceSort;
import io.sparkwarp.kernels.sort.SortKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;

/**
 * Merge join primitive tests' helpers: key columns of both sides in one batch (left rows first) in three shapes, the
 * primitives run end to end on a backend, and a nested-loop oracle.
 */
final class MergeJoinTesting {
  private MergeJoinTesting() {}

  /** Unique ints; longs with nulls and a hot key on both sides; (int, null-safe string) with nulls. */
  enum Shape {
    UNIQUE, SKEWED, MULTI_COLUMN;

    List<Boolean> nullSafe() {
      return this == MULTI_COLUMN ? List.of(false, true) : List.of(false);
    }
  }

  /** Key vectors of {@code rows} rows in {@code shape}, the left side's {@code leftRows} first. */
  static List<FieldVector> keys(Shape shape, int rows, int leftRows, BufferAllocator allocator, Random rnd) {
    int domain = Math.max(1, rows / 3);
    List<FieldVector> out = new ArrayList<>();
    switch (shape) {
      case UNIQUE -> {
        IntVector v = new IntVector("k", allocator);
        v.allocateNew(rows);
        // each side's keys distinct; about half of them on both sides
        for (int i = 0; i < rows; i++) v.set(i, i < leftRows ? 2 * i : 2 * rnd.nextInt(rows) + rnd.nextInt(2));
        v.setValueCount(rows);
        out.add(v);
      }
      case SKEWED -> {
        BigIntVector v = new BigIntVector("k", allocator);
        v.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
          double u = rnd.nextDouble();
          if (u < 0.03) v.setNull(i);
          else v.set(i, u < 0.04 ? -7 : rnd.nextInt(domain));
        }
        v.setValueCount(rows);
        out.add(v);
      }
      case MULTI_COLUMN -> {
        IntVector a = new IntVector("a", allocator);
        VarCharVector s = new VarCharVector("s", allocator);
        a.allocateNew(rows);
        s.allocateNew();
        for (int i = 0; i < rows; i++) {
          if (rnd.nextInt(30) == 0) a.setNull(i);
          else a.set(i, rnd.nextInt(Math.max(1, rows / 8)));
          if (rnd.nextInt(20) == 0) s.setNull(i);
          else s.setSafe(i, JoinTesting.word(rnd));
        }
        a.setValueCount(rows);
        s.setValueCount(rows);
        out.add(a);
        out.add(s);
      }
    }
    return out;
  }

  /** What the primitives produced: per sorted position, then the pairs in emitted order, then both bitmaps. */
  record Result(int[] counts, int[] firstsWhereMatched, long[] offsets, long[] pairs, byte[] leftMatched,
      byte[] rightMatched) {
    /** The pairs as sorted codes. */
    long[] sortedPairs() {
      long[] sorted = pairs.clone();
      Arrays.sort(sorted);
      return sorted;
    }
  }

  /** Sort, match ranges, offsets and the expansion in chunks of {@code chunk} pairs, read back. */
  static Result run(Backend backend, List<FieldVector> vectors, List<Boolean> nullSafe, int leftRows, int chunk,
      DeviceStream stream) {
    try (DeviceBatch batch = ArrowUpload.upload(backend, vectors, stream)) {
      int rows = batch.rowCount();
      List<SortKey> order = IntStream.range(0, batch.columnCount()).mapToObj(c -> new SortKey(c, true, true)).toList();
      MergeJoinPrimitives merges = backend.mergeJoins();
      try (DeviceBuffer sorted = DeviceSort.order(backend, batch, order, stream);
          DeviceBuffer counts = backend.allocate(4L * Math.max(1, rows), stream);
          DeviceBuffer firsts = backend.allocate(4L * Math.max(1, rows), stream);
          DeviceBuffer offsets = backend.allocate(8L * (rows + 1), stream);
          DeviceBuffer leftMatched = JoinTesting.bitmap(backend, new boolean[leftRows], stream);
          DeviceBuffer rightMatched = JoinTesting.bitmap(backend, new boolean[rows - leftRows], stream)) {
        merges.matchRanges(new JoinKeys(batch.columns(), nullSafe), sorted, leftRows, counts, firsts, leftMatched,
            rightMatched, stream);
        long total = merges.matchOffsets(counts, rows, offsets, stream);
        long[] pairs = new long[(int) total];
        for (long from = 0; from < total; from += chunk) {
          int count = (int) Math.min(chunk, total - from);
          try (DeviceBuffer left = backend.allocate(4L * count, stream);
              DeviceBuffer right = backend.allocate(4L * count, stream)) {
            merges.expand(offsets, firsts, sorted, rows, leftRows, from, count, left, right, stream);
            int[] l = JoinTesting.ints(backend, left, count, stream);
            int[] r = JoinTesting.ints(backend, right, count, stream);
            for (int k = 0; k < count; k++) pairs[(int) from + k] = (long) l[k] << 32 | r[k];
          }
        }
        int[] c = JoinTesting.ints(backend, counts, rows, stream);
        int[] f = JoinTesting.ints(backend, firsts, rows, stream);
        for (int j = 0; j < rows; j++) if (c[j] == 0) f[j] = 0;  // undefined without matches
        return new Result(c, f, DeviceReadback.longs(backend, offsets, rows + 1, stream), pairs,
            JoinTesting.bytes(backend, leftMatched, (leftRows + 7) / 8, stream),
            JoinTesting.bytes(backend, rightMatched, (rows - leftRows + 7) / 8, stream));
      }
    }
  }

  /** Every (left row, right row) pair with equal keys, null equal to null only where null-safe, as sorted codes. */
  static long[] expectedPairs(List<FieldVector> vectors, List<Boolean> nullSafe, int leftRows) {
    int rows = vectors.get(0).getValueCount();
    List<Long> out = new ArrayList<>();
    for (int l = 0; l < leftRows; l++) {
      for (int r = leftRows; r < rows; r++) {
        boolean eq = true;
        for (int c = 0; c < vectors.size() && eq; c++) {
          Object x = JoinTesting.value(vectors.get(c), l);
          Object y = JoinTesting.value(vectors.get(c), r);
          eq = x == null || y == null ? x == null && y == null && nullSafe.get(c) : Objects.equals(x, y);
        }
        if (eq) out.add((long) l << 32 | (r - leftRows));
      }
    }
    return out.stream().mapToLong(Long::longValue).sorted().toArray();
  }

  /** Arrow-order bitmap bytes with bit i set where {@code bits[i]}. */
  static byte[] bitmap(boolean[] bits) {
    byte[] out = new byte[(bits.length + 7) / 8];
    for (int i = 0; i < bits.length; i++) if (bits[i]) out[i / 8] |= (byte) (1 << (i % 8));
    return out;
  }
}
