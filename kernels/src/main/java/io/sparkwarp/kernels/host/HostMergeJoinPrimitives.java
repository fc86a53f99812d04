package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.kernels.join.KeyHash;
import io.sparkwarp.kernels.join.MergeJoinPrimitives;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import org.apache.arrow.memory.util.MemoryUtil;

/** {@link MergeJoinPrimitives} as Java loops: the reference {@code merge_join.cu} is tested against. */
final class HostMergeJoinPrimitives implements MergeJoinPrimitives {
  @Override
  public void matchRanges(JoinKeys keys, DeviceBuffer order, int leftRows, DeviceBuffer counts, DeviceBuffer firsts,
      DeviceBuffer leftMatched, DeviceBuffer rightMatched, DeviceStream stream) {
    MergeJoinPrimitives.checkMatchArguments(keys, order, leftRows, counts, firsts, leftMatched, rightMatched);
    int rows = keys.rowCount();
    int start = 0;
    while (start < rows) {
      // a run: the positions whose rows have equal keys; a row that matches nothing is a run of its own
      int end = start + 1;
      if (KeyHash.joinable(keys, row(order, start))) {
        while (end < rows && KeyHash.joinable(keys, row(order, end))
            && KeyHash.equal(keys, row(order, start), keys, row(order, end))) {
          end++;
        }
      }
      int firstRight = start;
      while (firstRight < end && row(order, firstRight) < leftRows) firstRight++;
      boolean matches = firstRight > start && firstRight < end;  // left rows first, then right rows
      for (int j = start; j < end; j++) {
        int r = row(order, j);
        boolean left = r < leftRows;
        MemoryUtil.putInt(counts.address() + 4L * j, left && matches ? end - firstRight : 0);
        MemoryUtil.putInt(firsts.address() + 4L * j, firstRight);
        if (matches) {
          if (left) HostBatchPrimitives.setBit(leftMatched.address(), r, true);
          else HostBatchPrimitives.setBit(rightMatched.address(), r - leftRows, true);
        }
      }
      start = end;
    }
  }

  @Override
  public long matchOffsets(DeviceBuffer counts, int rows, DeviceBuffer offsets, DeviceStream stream) {
    MergeJoinPrimitives.checkOffsetArguments(counts, rows, offsets);
    long sum = 0;
    for (int j = 0; j < rows; j++) {
      MemoryUtil.putLong(offsets.address() + 8L * j, sum);
      sum += MemoryUtil.getInt(counts.address() + 4L * j);
    }
    MemoryUtil.putLong(offsets.address() + 8L * rows, sum);
    return sum;
  }

  @Override
  public void expand(DeviceBuffer offsets, DeviceBuffer firsts, DeviceBuffer order, int rows, int leftRows,
      long from, int count, DeviceBuffer leftIds, DeviceBuffer rightIds, DeviceStream stream) {
    MergeJoinPrimitives.checkExpandArguments(offsets, firsts, order, rows, leftRows, from, count, leftIds, rightIds);
    if (count == 0) return;
    if (from + count > offset(offsets, rows)) {
      throw new IllegalArgumentException("pairs [" + from + ", " + (from + count) + ") of " + offset(offsets, rows));
    }
    // the last position starting at or before `from` (positions without pairs share their successor's start)
    int lo = 0;
    int hi = rows;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (offset(offsets, mid) <= from) lo = mid;
      else hi = mid - 1;
    }
    int j = lo;
    for (int k = 0; k < count; k++) {
      long p = from + k;
      while (offset(offsets, j + 1) <= p) j++;
      long match = p - offset(offsets, j);
      MemoryUtil.putInt(leftIds.address() + 4L * k, row(order, j));
      int at = MemoryUtil.getInt(firsts.address() + 4L * j) + (int) match;
      MemoryUtil.putInt(rightIds.address() + 4L * k, row(order, at) - leftRows);
    }
  }

  private static int row(DeviceBuffer order, int position) {
    return MemoryUtil.getInt(order.address() + 4L * position);
  }

  private static long offset(DeviceBuffer offsets, int position) {
    return MemoryUtil.getLong(offsets.address() + 8L * position);
  }
}
