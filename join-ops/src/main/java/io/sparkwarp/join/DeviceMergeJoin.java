package io.sparkwarp.join;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.BatchConcatenator;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.kernels.join.MergeJoinPrimitives;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.sort.DeviceSort;
import io.sparkwarp.kernels.sort.SortKey;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * A merge-path sort-merge join of two whole device batches (a partition's two sides). The keys of both sides are
 * sorted together by one stable {@link DeviceSort} (left rows first, so within a run of equal keys the left rows
 * precede the right ones and keys of every type are compared by the sort alone); each left row then matches the
 * right rows of its run, and merge path expands those ranges into pairs, chunk by chunk, evenly over the GPU
 * whatever the skew ({@link MergeJoinPrimitives}). Chunks of at most {@code chunkPairs} pairs become output
 * batches, in the key order of the left rows, left columns then right; then come the rows of one side alone (left
 * rows of left outer, full, semi and anti joins; right rows of right outer and full joins), from match bitmaps.
 *
 * <p>With a residual condition a key match is no match until the condition holds: each chunk's pairs go through it
 * ({@link ResidualFilter}) and only the passing pairs are emitted and mark their rows.
 */
public final class DeviceMergeJoin {
  private DeviceMergeJoin() {}

  /**
   * Joins {@code left} with {@code right}, handing each output batch to {@code out}, which owns it. Both sides and
   * their keys (of equal types, column by column) stay the caller's.
   *
   * @return the pairs of rows with equal keys (before any residual condition)
   * @throws io.sparkwarp.kernels.expr.ExpressionErrorException when the residual condition raised an error
   */
  public static long join(Backend backend, DeviceBatch left, JoinKeys leftKeys, DeviceBatch right,
      JoinKeys rightKeys, JoinType type, JoinCondition condition, int chunkPairs, DeviceStream stream,
      Consumer<DeviceBatch> out) {
    leftKeys.checkComparable(rightKeys);
    if (chunkPairs < 1) throw new IllegalArgumentException("chunks of " + chunkPairs + " pairs");
    long rows = (long) left.rowCount() + right.rowCount();
    if (rows > Integer.MAX_VALUE) throw new IllegalArgumentException(rows + " rows do not fit one merge");
    List<DeviceType> leftTypes = JoinOutput.types(left);
    List<DeviceType> rightTypes = JoinOutput.types(right);
    JoinOutput output = new JoinOutput(backend, type, leftTypes, rightTypes, stream);
    ResidualFilter residual = condition == null ? null
        : new ResidualFilter(backend, condition, JoinType.Side.RIGHT, rightTypes, leftTypes, stream);
    try (DeviceBuffer leftMatched = output.zeroedBitmap(left.rowCount());
        DeviceBuffer rightMatched = output.zeroedBitmap(right.rowCount())) {
      long pairs = left.rowCount() == 0 || right.rowCount() == 0 ? 0 : new Merge(backend, left, leftKeys, right,
          rightKeys, type, residual, output, stream).run(chunkPairs, leftMatched, rightMatched, out);
      if (type.keepsUnmatched(JoinType.Side.LEFT) || !type.outputsRight()) {
        output.unmatchedOrSemi(left, leftMatched, JoinType.Side.LEFT, out);
      }
      if (type.keepsUnmatched(JoinType.Side.RIGHT)) {
        output.unmatchedOrSemi(right, rightMatched, JoinType.Side.RIGHT, out);
      }
      return pairs;
    }
  }

  /** The pairs of two non-empty sides. */
  private record Merge(Backend backend, DeviceBatch left, JoinKeys leftKeys, DeviceBatch right, JoinKeys rightKeys,
      JoinType type, ResidualFilter residual, JoinOutput output, DeviceStream stream) {
    long run(int chunkPairs, DeviceBuffer leftMatched, DeviceBuffer rightMatched, Consumer<DeviceBatch> out) {
      int leftRows = left.rowCount();
      int rows = leftRows + right.rowCount();
      MergeJoinPrimitives merges = backend.mergeJoins();
      try (DeviceBatch keys = BatchConcatenator.concat(backend, List.of(new DeviceBatch(leftKeys.columns(), leftRows),
          new DeviceBatch(rightKeys.columns(), right.rowCount())), stream)) {
        List<SortKey> order = IntStream.range(0, keys.columnCount()).mapToObj(c -> new SortKey(c, true, true))
            .toList();
        try (DeviceBuffer sorted = DeviceSort.order(backend, keys, order, stream);
            DeviceBuffer counts = backend.allocate(4L * rows, stream);
            DeviceBuffer firsts = backend.allocate(4L * rows, stream);
            // with a condition, key matches are only candidates: the passing pairs mark the rows instead
            DeviceBuffer keyLeft = residual == null ? null : output.zeroedBitmap(leftRows);
            DeviceBuffer keyRight = residual == null ? null : output.zeroedBitmap(right.rowCount())) {
          merges.matchRanges(new JoinKeys(keys.columns(), leftKeys.nullSafe()), sorted, leftRows, counts, firsts,
              residual == null ? leftMatched : keyLeft, residual == null ? rightMatched : keyRight, stream);
          try (DeviceBuffer offsets = backend.allocate(8L * (rows + 1), stream)) {
            long total = merges.matchOffsets(counts, rows, offsets, stream);
            // semi and anti joins without a condition need the bitmaps alone
            boolean expand = residual != null || type.outputsRight();
            for (long from = 0; expand && from < total; from += chunkPairs) {
              int count = (int) Math.min(chunkPairs, total - from);
              try (DeviceBuffer leftIds = backend.allocate(4L * count, stream);
                  DeviceBuffer rightIds = backend.allocate(4L * count, stream)) {
                merges.expand(offsets, firsts, sorted, rows, leftRows, from, count, leftIds, rightIds, stream);
                emit(leftIds, rightIds, count, leftMatched, rightMatched, out);
              }
            }
            return total;
          }
        }
      }
    }

    /** One chunk of pairs: emitted, or first filtered by the condition, whose passing pairs mark their rows. */
    private void emit(DeviceBuffer leftIds, DeviceBuffer rightIds, int count, DeviceBuffer leftMatched,
        DeviceBuffer rightMatched, Consumer<DeviceBatch> out) {
      if (residual == null) {
        out.accept(output.pairs(left, leftIds, right, rightIds, count));
        return;
      }
      try (DeviceBatch passing = residual.passing(left, right, leftIds, rightIds, count)) {
        int kept = passing.rowCount();
        if (kept == 0) return;
        DeviceBuffer keptLeft = ResidualFilter.streamRows(passing);
        DeviceBuffer keptRight = ResidualFilter.buildRows(passing);
        backend.joins().markRows(leftMatched, keptLeft, kept, stream);
        backend.joins().markRows(rightMatched, keptRight, kept, stream);
        if (type.outputsRight()) out.accept(output.pairs(left, keptLeft, right, keptRight, kept));
      }
    }
  }
}
