package io.sparkwarp.kernels.partition;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A batch's rows reordered so that each of Spark's hash partitions is one contiguous run: partition p's rows are
 * rows [starts[p], starts[p + 1]) of {@link #batch()}, in their input order. Owns the batch.
 */
public record PartitionedBatch(DeviceBatch batch, int[] starts) implements AutoCloseable {
  /**
   * Partitions {@code input} by Spark's murmur3 hash of the columns at {@code keyColumns}: the ids, the stable
   * grouping and one gather of every column, all on the device. Leaves {@code input} open.
   */
  public static PartitionedBatch hash(Backend backend, DeviceBatch input, int[] keyColumns, int numPartitions,
      DeviceStream stream) {
    if (numPartitions < 1) throw new IllegalArgumentException("numPartitions " + numPartitions + " is below 1");
    if (keyColumns.length == 0) throw new IllegalArgumentException("hash partitioning needs a key column");
    int rows = input.rowCount();
    List<DeviceColumn> keys = new ArrayList<>();
    for (int k : keyColumns) keys.add(input.column(k));
    try (DeviceBuffer ids = backend.allocate(4L * Math.max(1, rows), stream);
        DeviceBuffer order = backend.allocate(4L * Math.max(1, rows), stream)) {
      PartitionPrimitives partitions = backend.partitions();
      if (rows > 0) partitions.hashPartitionIds(keys, rows, numPartitions, ids, stream);
      int[] starts = partitions.groupByPartition(ids, rows, numPartitions, order, stream);
      // ids and order go back to the stream-ordered pool after the gather that reads them
      return new PartitionedBatch(backend.joins().gather(input, order, rows, stream), starts);
    }
  }

  /** Rows of partition p. */
  public int rows(int p) {
    return starts[p + 1] - starts[p];
  }

  @Override
  public void close() {
    batch.close();
  }
}
