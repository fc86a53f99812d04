package io.sparkwarp.kernels.join;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;

/**
 * The device side of merge-path sort-merge joins. Both sides' keys are sorted together: one stable sort of the left
 * keys followed by the right keys, so keys of every type are compared by the sort alone and, within a run of equal
 * keys, the left rows come first. A left row then matches the right rows of its run, a contiguous range of the
 * sorted order, and the pairs are the expansion of those ranges. The expansion is split across thread blocks by
 * merge path (Odeh et al.; moderngpu's load-balancing search): the sorted positions and the output pairs form one
 * merged sequence, and every block takes an equal share of it, so one key matching millions of rows spreads over
 * many blocks and a stretch of rows without matches costs one step each. CUDA: {@code merge_join.cu},
 * {@code merge_path.cuh}. Asynchronous unless a method says otherwise.
 */
public interface MergeJoinPrimitives {
  /**
   * The match ranges of the sorted keys. {@code keys} holds the left side's rows [0, leftRows) then the right
   * side's; {@code order} (int32, one per key row) lists the rows in the sort's order. For every sorted position j,
   * counts[j] (int32) = how many right rows the left row there matches (0 at a right row and at a row that matches
   * nothing: a null in a column that is not null-safe), and where that is not 0, firsts[j] (int32) = the sorted
   * position of the first of them. Sets bit r of {@code leftMatched} for every left row r with a match and bit
   * r - leftRows of {@code rightMatched} for every right row r with one (Arrow-order bitmaps the caller zeroed).
   */
  void matchRanges(JoinKeys keys, DeviceBuffer order, int leftRows, DeviceBuffer counts, DeviceBuffer firsts,
      DeviceBuffer leftMatched, DeviceBuffer rightMatched, DeviceStream stream);

  /**
   * offsets[j] (int64) = the sum of counts[0, j) for j in [0, rows]: where each sorted position's pairs start.
   * Synchronises the stream to return the total, offsets[rows].
   */
  long matchOffsets(DeviceBuffer counts, int rows, DeviceBuffer offsets, DeviceStream stream);

  /**
   * Pairs [from, from + count) of the expansion, pair p being match p - offsets[j] of the left row at the sorted
   * position j with offsets[j] <= p < offsets[j + 1]: leftIds[p - from] = order[j] and rightIds[p - from] =
   * order[firsts[j] + p - offsets[j]] - leftRows (int32 row ids of each side). Pairs come in the sorted order of
   * the left rows, and of the right rows within one left row.
   */
  void expand(DeviceBuffer offsets, DeviceBuffer firsts, DeviceBuffer order, int rows, int leftRows, long from,
      int count, DeviceBuffer leftIds, DeviceBuffer rightIds, DeviceStream stream);

  /** The argument checks both backends make before {@link #matchRanges}. */
  static void checkMatchArguments(JoinKeys keys, DeviceBuffer order, int leftRows, DeviceBuffer counts,
      DeviceBuffer firsts, DeviceBuffer leftMatched, DeviceBuffer rightMatched) {
    int rows = keys.rowCount();
    if (leftRows < 0 || leftRows > rows) {
      throw new IllegalArgumentException(leftRows + " left rows of " + rows + " key rows");
    }
    order.checkRange(0, 4L * rows);
    counts.checkRange(0, 4L * rows);
    firsts.checkRange(0, 4L * rows);
    leftMatched.checkRange(0, (leftRows + 7L) / 8);
    rightMatched.checkRange(0, (rows - leftRows + 7L) / 8);
  }

  /** The argument checks both backends make before {@link #matchOffsets}. */
  static void checkOffsetArguments(DeviceBuffer counts, int rows, DeviceBuffer offsets) {
    if (rows < 0) throw new IllegalArgumentException("negative row count " + rows);
    counts.checkRange(0, 4L * rows);
    offsets.checkRange(0, 8L * (rows + 1));
  }

  /** The argument checks both backends make before {@link #expand}. */
  static void checkExpandArguments(DeviceBuffer offsets, DeviceBuffer firsts, DeviceBuffer order, int rows,
      int leftRows, long from, int count, DeviceBuffer leftIds, DeviceBuffer rightIds) {
    if (rows < 0 || leftRows < 0 || leftRows > rows) {
      throw new IllegalArgumentException(leftRows + " left rows of " + rows + " rows");
    }
    if (from < 0 || count < 0) throw new IllegalArgumentException("pairs from " + from + ", count " + count);
    offsets.checkRange(0, 8L * (rows + 1));
    firsts.checkRange(0, 4L * rows);
    order.checkRange(0, 4L * rows);
    leftIds.checkRange(0, 4L * count);
    rightIds.checkRange(0, 4L * count);
  }
}
