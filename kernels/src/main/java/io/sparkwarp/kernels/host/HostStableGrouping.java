package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.memory.DeviceBuffer;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * The stable counting sort of rows by an int32 id: the reference {@code grouping.cu} is tested against, for the
 * shuffle's grouping by partition and every digit pass of the device sort.
 */
final class HostStableGrouping {
  private HostStableGrouping() {}

  /**
   * Writes into out[0, rows) values[i] (i itself where {@code values} is null) for the rows i grouped by ids[i] in
   * [0, buckets), in input order within a bucket, and returns the buckets + 1 starts: bucket b is out[starts[b],
   * starts[b + 1]).
   *
   * @throws IllegalArgumentException for an id outside [0, buckets)
   */
  static int[] group(DeviceBuffer ids, int rows, int buckets, DeviceBuffer values, DeviceBuffer out) {
    int[] starts = new int[buckets + 1];
    for (int i = 0; i < rows; i++) {
      int p = MemoryUtil.getInt(ids.address() + 4L * i);
      if (p < 0 || p >= buckets) {
        throw new IllegalArgumentException("row " + i + " has id " + p + ", outside [0, " + buckets + ")");
      }
      starts[p + 1]++;
    }
    for (int p = 0; p < buckets; p++) starts[p + 1] += starts[p];
    int[] next = starts.clone();
    for (int i = 0; i < rows; i++) {
      int p = MemoryUtil.getInt(ids.address() + 4L * i);
      int value = values == null ? i : MemoryUtil.getInt(values.address() + 4L * i);
      MemoryUtil.putInt(out.address() + 4L * next[p]++, value);
    }
    return starts;
  }
}
