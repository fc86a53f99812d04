package io.sparkwarp.kernels.partition;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.List;

/**
 * Spark's hash, range and round-robin partitioning of device rows: the partition ids Spark's {@code
 * HashPartitioning}, {@code RangePartitioner} and {@code RoundRobinPartitioning} give them, and a stable grouping of
 * the rows by id. CUDA: {@code partition.cu}.
 */
public interface PartitionPrimitives {
  /**
   * ids[i] (int32) = {@code pmod(murmur3(key values of row i, 42), numPartitions)} for rows [0, rows), bit for bit
   * Spark's {@code HashPartitioning.partitionIdExpression}: a null key leaves the running hash as it is, floats hash
   * -0.0 as 0.0 and every NaN alike, decimals of up to 18 digits hash their unscaled long, wider ones the bytes of
   * Java's {@code BigInteger.toByteArray()}.
   *
   * @param keys at least one column of at least {@code rows} rows
   */
  default void hashPartitionIds(List<DeviceColumn> keys, int rows, int numPartitions, DeviceBuffer ids,
      DeviceStream stream) {
    hashPartitionIds(keys, rows, numPartitions, SparkMurmur3.SEED, ids, stream);
  }

  /**
   * {@link #hashPartitionIds(List, int, int, DeviceBuffer, DeviceStream)} with murmur3 seeded by {@code seed}
   * instead of Spark's 42: rows that share one Spark partition (one value of the seed-42 hash modulo the partition
   * count) spread evenly over the partitions of another seed, where a seed-42 split would follow the first one.
   */
  void hashPartitionIds(List<DeviceColumn> keys, int rows, int numPartitions, int seed, DeviceBuffer ids,
      DeviceStream stream);

  /**
   * ids[r] (int32) = the range partition of row r in [0, rows): how many of the {@code bounds} sort before it, given
   * {@code sorted}, a stable order (int32, rows + bounds of them) of the rows' keys followed by the bounds' keys
   * (indices at or above rows are bounds). A row equal to a bound sorts before it, so it lands at or below that
   * bound's partition, as Spark's {@code RangePartitioner} places it.
   */
  void rangePartitionIds(DeviceBuffer sorted, int rows, int bounds, DeviceBuffer ids, DeviceStream stream);

  /**
   * ids[i] (int32) = {@code nonNegativeMod(first + i, numPartitions)} for rows [0, rows), {@code first + i} wrapping
   * as a Java int: Spark's round-robin placement, where a map task's rows take consecutive positions (ints that
   * wrap) and its HashPartitioner maps each position to a partition.
   */
  void roundRobinPartitionIds(int rows, int first, int numPartitions, DeviceBuffer ids, DeviceStream stream);

  /**
   * Writes into order[0, rows) (int32) the row indices grouped by their id (ids: int32 in [0, numPartitions)), in
   * input order within each partition, and returns the numPartitions + 1 starts: partition p's rows are
   * order[starts[p], starts[p + 1]). Synchronises the stream to read the starts back.
   */
  int[] groupByPartition(DeviceBuffer ids, int rows, int numPartitions, DeviceBuffer order, DeviceStream stream);

  /** The argument checks both backends make before {@link #hashPartitionIds}. */
  static void checkHashArguments(List<DeviceColumn> keys, int rows, int numPartitions, DeviceBuffer ids) {
    checkGroupArguments(ids, rows, numPartitions, ids);
    if (keys.isEmpty()) throw new IllegalArgumentException("hash partitioning needs a key column");
    for (DeviceColumn key : keys) {
      if (key.rowCount() < rows) {
        throw new IllegalArgumentException("a key column of " + key.rowCount() + " rows for " + rows + " rows");
      }
    }
  }

  /** The argument checks both backends make before {@link #rangePartitionIds}. */
  static void checkRangeArguments(DeviceBuffer sorted, int rows, int bounds, DeviceBuffer ids) {
    if (rows < 0 || bounds < 0) throw new IllegalArgumentException(rows + " rows and " + bounds + " bounds");
    sorted.checkRange(0, 4L * ((long) rows + bounds));
    ids.checkRange(0, 4L * rows);
  }

  /** The argument checks both backends make before {@link #groupByPartition}. */
  static void checkGroupArguments(DeviceBuffer ids, int rows, int numPartitions, DeviceBuffer order) {
    if (numPartitions < 1) throw new IllegalArgumentException("numPartitions " + numPartitions + " is below 1");
    if (rows < 0) throw new IllegalArgumentException("negative row count " + rows);
    ids.checkRange(0, 4L * rows);
    order.checkRange(0, 4L * rows);
  }
}
