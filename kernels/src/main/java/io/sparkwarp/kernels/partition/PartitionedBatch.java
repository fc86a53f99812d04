package io.sparkwarp.kernels.partition;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.BatchConcatenator;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.sort.DeviceSort;
import io.sparkwarp.kernels.sort.SortKey;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

/**
 * A batch's rows reordered so that each of Spark's hash, range or round-robin partitions is one contiguous run:
 * partition p's rows are rows [starts[p], starts[p + 1]) of {@link #batch()}, in their input order. Owns the batch.
 */
public record PartitionedBatch(DeviceBatch batch, int[] starts) implements AutoCloseable {
  /**
   * Partitions {@code input} by Spark's murmur3 hash of the columns at {@code keyColumns}: the ids, the stable
   * grouping and one gather of every column, all on the device. Leaves {@code input} open.
   */
  public static PartitionedBatch hash(Backend backend, DeviceBatch input, int[] keyColumns, int numPartitions,
      DeviceStream stream) {
    return hash(backend, input, keyColumns, numPartitions, SparkMurmur3.SEED, stream);
  }

  /**
   * {@link #hash(Backend, DeviceBatch, int[], int, DeviceStream)} with murmur3 seeded by {@code seed} (see {@link
   * PartitionPrimitives#hashPartitionIds(List, int, int, int, DeviceBuffer, DeviceStream)}).
   */
  public static PartitionedBatch hash(Backend backend, DeviceBatch input, int[] keyColumns, int numPartitions,
      int seed, DeviceStream stream) {
    if (numPartitions < 1) throw new IllegalArgumentException("numPartitions " + numPartitions + " is below 1");
    if (keyColumns.length == 0) throw new IllegalArgumentException("hash partitioning needs a key column");
    int rows = input.rowCount();
    List<DeviceColumn> keys = new ArrayList<>();
    for (int k : keyColumns) keys.add(input.column(k));
    try (DeviceBuffer ids = backend.allocate(4L * Math.max(1, rows), stream);
        DeviceBuffer order = backend.allocate(4L * Math.max(1, rows), stream)) {
      PartitionPrimitives partitions = backend.partitions();
      if (rows > 0) partitions.hashPartitionIds(keys, rows, numPartitions, seed, ids, stream);
      return grouped(backend, input, ids, numPartitions, order, stream);
    }
  }

  /**
   * Partitions {@code input} round-robin as Spark's exchange does: row i goes to partition {@code (first + i) mod
   * numPartitions}, first being the map task's running position (see {@link
   * PartitionPrimitives#roundRobinPartitionIds}); then the grouping and gather of {@link #hash}. Leaves {@code
   * input} open.
   */
  public static PartitionedBatch roundRobin(Backend backend, DeviceBatch input, int first, int numPartitions,
      DeviceStream stream) {
    int rows = input.rowCount();
    try (DeviceBuffer ids = backend.allocate(4L * Math.max(1, rows), stream);
        DeviceBuffer order = backend.allocate(4L * Math.max(1, rows), stream)) {
      backend.partitions().roundRobinPartitionIds(rows, first, numPartitions, ids, stream);
      return grouped(backend, input, ids, numPartitions, order, stream);
    }
  }

  /**
   * Partitions {@code input} by ranges of {@code keys} as Spark's {@code RangePartitioner} does: partition p holds
   * the rows above bound p - 1 and at or below bound p in the keys' order. {@code bounds} holds the bounds, one
   * column per key in the keys' order and of its type, sorted; there are {@code bounds.rowCount() + 1} partitions.
   * The rows' keys and the bounds are sorted together once ({@link DeviceSort}, rows first among equals), which
   * counts the bounds below each row; then the grouping and gather of {@link #hash}. Leaves both batches open.
   */
  public static PartitionedBatch range(Backend backend, DeviceBatch input, List<SortKey> keys, DeviceBatch bounds,
      DeviceStream stream) {
    if (bounds.columnCount() != keys.size()) {
      throw new IllegalArgumentException(bounds.columnCount() + " bound columns for " + keys.size() + " keys");
    }
    int rows = input.rowCount();
    int numPartitions = bounds.rowCount() + 1;
    List<DeviceColumn> keyColumns = keys.stream().map(k -> input.column(k.column())).toList();
    List<SortKey> combinedKeys = IntStream.range(0, keys.size())
        .mapToObj(i -> new SortKey(i, keys.get(i).ascending(), keys.get(i).nullsFirst())).toList();
    try (DeviceBuffer ids = backend.allocate(4L * Math.max(1, rows), stream);
        DeviceBuffer order = backend.allocate(4L * Math.max(1, rows), stream)) {
      if (rows > 0 && bounds.rowCount() == 0) {
        backend.fill(ids, 0, 4L * rows, (byte) 0, stream);
      } else if (rows > 0) {
        // the key view shares the input's columns: it is not closed
        try (DeviceBatch combined = BatchConcatenator.concat(backend, List.of(new DeviceBatch(keyColumns, rows),
            bounds), stream);
            DeviceBuffer sorted = DeviceSort.order(backend, combined, combinedKeys, stream)) {
          backend.partitions().rangePartitionIds(sorted, rows, bounds.rowCount(), ids, stream);
        }
      }
      return grouped(backend, input, ids, numPartitions, order, stream);
    }
  }

  /** The input's rows grouped by {@code ids} through {@code order} (both scratch of the caller). */
  private static PartitionedBatch grouped(Backend backend, DeviceBatch input, DeviceBuffer ids, int numPartitions,
      DeviceBuffer order, DeviceStream stream) {
    int rows = input.rowCount();
    int[] starts = backend.partitions().groupByPartition(ids, rows, numPartitions, order, stream);
    // ids and order go back to the stream-ordered pool after the gather that reads them
    return new PartitionedBatch(backend.joins().gather(input, order, rows, stream), starts);
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
