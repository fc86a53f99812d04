package io.sparkwarp.parquet;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.BatchConcatenator;
import io.sparkwarp.kernels.batch.BatchSlicer;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import java.util.List;

/**
 * Keeps the rows of a decoded column that its batch keeps: where the column indexes pruned pages, each column's
 * pages cover their own row spans, and the slices of the kept row ranges in them line the columns up again. The
 * slices are copied on the device, end to end.
 */
final class RowSlices {
  private RowSlices() {}

  /**
   * The rows of {@code column} in {@code slices} ({start, length}, in order) as a column the caller owns; closes
   * {@code column} unless it is returned as it is (a single slice of every row).
   */
  static DeviceColumn keep(Backend backend, DeviceColumn column, List<long[]> slices, DeviceStream stream) {
    if (slices.size() == 1 && slices.get(0)[0] == 0 && slices.get(0)[1] == column.rowCount()) return column;
    try (DeviceBatch whole = new DeviceBatch(List.of(column), column.rowCount())) {
      if (slices.stream().allMatch(s -> s[1] == 0)) return DeviceColumn.allocate(backend, column.type(), 0, 0, stream);
      int[] starts = slices.stream().mapToInt(s -> Math.toIntExact(s[0])).toArray();
      int[] lengths = slices.stream().mapToInt(s -> Math.toIntExact(s[1])).toArray();
      // a batch of one column: its column is the result
      return BatchConcatenator.concatRanges(backend, BatchSlicer.ranges(backend, whole, starts, lengths, stream),
          stream).column(0);
    }
  }
}
