package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.partition.PartitionedBatch;
import io.sparkwarp.plugin.runtime.TaskGpu;
import io.sparkwarp.plugin.shuffle.ColumnarSlices;
import io.sparkwarp.plugin.shuffle.SparkHashPartitioner;
import java.io.Serializable;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.catalyst.plans.physical.RangePartitioning;
import org.apache.spark.sql.catalyst.plans.physical.RoundRobinPartitioning;
import org.apache.spark.sql.catalyst.plans.physical.SinglePartition$;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.util.random.XORShiftRandom;
import scala.Product2;
import scala.Tuple2;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The map side of {@link GpuShuffleExchangeExec}: each device batch's rows given the partition ids Spark would give
 * them (its hash, the sampled bounds of its range partitioning, or the task's round-robin positions) and grouped by
 * partition on the device ({@link PartitionedBatch}), downloaded once, and each partition's run of rows cut into one
 * columnar slice: the shuffle's records are (partition id, slice).
 *
 * <p>Round-robin places rows as Spark's exchange does: a map task starts at {@code new
 * XORShiftRandom(partitionId).nextInt(n)}, and each row, in the task's row order across its batches, takes the next
 * position. Spark first sorts each task's rows (spark.sql.execution.sortBeforeRepartition) so that a retried task
 * places every row where the first attempt did, even when its input arrives in another order (a shuffle read's
 * blocks come as they are fetched). That sort is not reproduced here: it would hold a task's whole input on the
 * device and sort it by value. Instead the records are declared order-sensitive (see {@link
 * GpuShuffleExchangeExec}), which is what Spark itself does with that setting off: over an input of fixed order (a
 * scan and what follows it) a retried task places rows alike anyway, and over an unordered one (a shuffle read)
 * Spark's scheduler treats this stage as indeterminate and, on a fetch failure, reruns all of it and what read it
 * rather than one task. The multiset of rows and the rows per partition are Spark's either way.
 */
final class SliceWriter implements Serializable {
  /** The metrics a map task updates. */
  record Metrics(SQLMetric time, SQLMetric dataSize, SQLMetric rows, SQLMetric pcieBytes, RetryMetrics retries)
      implements Serializable {}

  private final List<String> names;
  /** Positions of the hash keys among the columns; null for a single partition or ranges. */
  private final int[] keyColumns;
  /** The bounds of range partitioning; null for the others. */
  private final RangeBounds ranges;
  /** Whether rows are placed round-robin (then keyColumns and ranges are null). */
  private final boolean roundRobin;
  private final int numPartitions;
  private final Metrics metrics;

  private SliceWriter(List<String> names, int[] keyColumns, RangeBounds ranges, boolean roundRobin,
      int numPartitions, Metrics metrics) {
    this.names = names;
    this.keyColumns = keyColumns;
    this.ranges = ranges;
    this.roundRobin = roundRobin;
    this.numPartitions = numPartitions;
    this.metrics = metrics;
  }

  /** Why rows of {@code output} cannot be partitioned by {@code partitioning} here; empty when they can. */
  static Optional<String> whyNot(Partitioning partitioning, Seq<Attribute> output) {
    if (partitioning == SinglePartition$.MODULE$ || partitioning instanceof RoundRobinPartitioning) {
      return Optional.empty();
    }
    List<Attribute> columns = CollectionConverters.asJava(output);
    if (partitioning instanceof RangePartitioning range) return SortKeys.whyNot(range.ordering(), columns);
    if (!(partitioning instanceof HashPartitioning hash)) {
      return Optional.of(partitioning.getClass().getSimpleName()
          + " is not supported (hash, range, round-robin and single are)");
    }
    for (Expression key : CollectionConverters.asJava(hash.expressions())) {
      if (InputColumns.indexOf(columns, key) < 0) {
        return Optional.of("hash key " + key.sql() + " is not a column of the input");
      }
      if (!SparkHashPartitioner.supports(key.dataType())) {
        return Optional.of("hash key " + key.sql() + " of type " + key.dataType().simpleString()
            + " is not supported");
      }
    }
    return Optional.empty();
  }

  /** @param ranges the sampled bounds where {@code partitioning} is a RangePartitioning, else null */
  static SliceWriter of(Partitioning partitioning, Seq<Attribute> output, List<String> names, RangeBounds ranges,
      Metrics metrics) {
    whyNot(partitioning, output).ifPresent(why -> {
      throw new IllegalArgumentException(why);
    });
    if (partitioning instanceof RangePartitioning range) {
      if (ranges == null) throw new IllegalArgumentException("range partitioning without its bounds");
      return new SliceWriter(names, null, ranges, false, range.numPartitions(), metrics);
    }
    if (partitioning instanceof RoundRobinPartitioning rr) {
      return new SliceWriter(names, null, null, true, rr.numPartitions(), metrics);
    }
    if (!(partitioning instanceof HashPartitioning hash)) return new SliceWriter(names, null, null, false, 1, metrics);
    List<Attribute> columns = CollectionConverters.asJava(output);
    List<Expression> keys = CollectionConverters.asJava(hash.expressions());
    int[] positions = keys.stream().mapToInt(k -> InputColumns.indexOf(columns, k)).toArray();
    return new SliceWriter(names, positions, null, false, hash.numPartitions(), metrics);
  }

  /** The shuffle records of one map task's batches. */
  Iterator<Product2<Object, Object>> records(Iterator<org.apache.spark.sql.vectorized.ColumnarBatch> batches) {
    return records(new ArrayDeque<>(), batches, firstPosition());
  }

  /**
   * The shuffle records of batches already grouped on the device ({@code grouped}, which this closes as it goes),
   * then of the rest of a map task's batches, the first of them at round-robin {@code position}.
   */
  Iterator<Product2<Object, Object>> records(ArrayDeque<PartitionedBatch> grouped,
      Iterator<org.apache.spark.sql.vectorized.ColumnarBatch> batches, int position) {
    TaskGpu gpu = TaskGpu.get();
    DeviceRetry retry = retry();
    ArrayDeque<Product2<Object, Object>> pending = new ArrayDeque<>();
    int[] next = {position};
    return new Iterator<>() {
      /** The grouped pieces of the latest input batch. */
      private Iterator<PartitionedBatch> pieces = Collections.emptyIterator();

      @Override
      public boolean hasNext() {
        while (pending.isEmpty()) {
          if (grouped.isEmpty() && !pieces.hasNext()) {
            if (!batches.hasNext()) break;
            pieces = partition(batches.next(), next[0], gpu, retry);  // grouped as they are taken, below
            continue;
          }
          long start = System.nanoTime();  // after the input's own work
          boolean fresh = grouped.isEmpty();
          try (PartitionedBatch batch = fresh ? pieces.next() : grouped.poll()) {
            if (fresh) next[0] += batch.batch().rowCount();
            cut(batch, gpu, pending);
          } finally {
            metrics.time().add(System.nanoTime() - start);
          }
        }
        return !pending.isEmpty();
      }

      @Override
      public Product2<Object, Object> next() {
        if (!hasNext()) throw new NoSuchElementException();
        return pending.poll();
      }
    };
  }

  /** The round-robin position of a map task's first row: Spark's start, then one more per row (a wrapping int). */
  int firstPosition() {
    return roundRobin ? roundRobinStart(TaskContext.get().partitionId(), numPartitions) + 1 : 0;
  }

  /**
   * Where Spark's exchange starts the round-robin positions of map task {@code partitionId}
   * (ShuffleExchangeExec.getPartitionKeyExtractor; the seed is scrambled there, SPARK-21782).
   */
  static int roundRobinStart(int partitionId, int numPartitions) {
    return new XORShiftRandom(partitionId).nextInt(numPartitions);
  }

  int numPartitions() {
    return numPartitions;
  }

  /** The device retry of this exchange's grouping in the current map task. */
  DeviceRetry retry() {
    return DeviceRetry.of(metrics.retries());
  }

  /**
   * One batch's rows grouped by partition on the device (round-robin from {@code position}, by hash or by ranges; a
   * single partition or no rows as they are), which the caller owns; the batch is consumed. One grouped batch, or
   * when the device has no room to group it whole, one per piece of its rows, in order ({@link DeviceRetry}).
   */
  Iterator<PartitionedBatch> partition(org.apache.spark.sql.vectorized.ColumnarBatch batch, int position,
      TaskGpu gpu, DeviceRetry retry) {
    DeviceBatch onDevice = DeviceBatches.unwrap(batch);
    int rows = onDevice.rowCount();
    if (numPartitions == 1 || rows == 0) {
      int[] starts = new int[numPartitions + 1];
      java.util.Arrays.fill(starts, 1, starts.length, rows);
      return List.of(new PartitionedBatch(onDevice, starts)).iterator();
    }
    int[] at = {position};  // of the next piece: pieces come in row order
    return retry.splitting(gpu, onDevice, piece -> {
      PartitionedBatch grouped = group(piece, at[0], gpu);
      at[0] += piece.rowCount();
      return grouped;
    });
  }

  private PartitionedBatch group(DeviceBatch input, int position, TaskGpu gpu) {
    if (roundRobin) return PartitionedBatch.roundRobin(gpu.backend(), input, position, numPartitions, gpu.stream());
    if (ranges == null) return PartitionedBatch.hash(gpu.backend(), input, keyColumns, numPartitions, gpu.stream());
    try (DeviceBatch bounds = ranges.upload(gpu)) {
      return PartitionedBatch.range(gpu.backend(), input, ranges.keys(), bounds, gpu.stream());
    }
  }

  /** Downloads a grouped batch once and cuts each partition's run of rows into one slice, added to {@code out}. */
  private void cut(PartitionedBatch grouped, TaskGpu gpu, ArrayDeque<Product2<Object, Object>> out) {
    if (grouped.batch().rowCount() == 0) return;
    DeviceBatches.Downloaded host = DeviceBatches.download(grouped.batch(), names, gpu);
    try {
      int n = host.rows();
      List<FieldVector> columns = host.vectors();
      byte[][] slices = ColumnarSlices.ranges(columns, grouped.starts());
      for (int p = 0; p < slices.length; p++) {
        if (slices[p] != null) out.add(new Tuple2<>(p, slices[p]));
      }
      metrics.rows().add(n);
      metrics.dataSize().add(unsafeRowBytes(columns, n));
      metrics.pcieBytes().add(columns.stream().mapToLong(FieldVector::getBufferSize).sum());
    } finally {
      Closeables.closeAll(host.vectors());
    }
  }

  /** The metrics a map task updates. */
  Metrics metrics() {
    return metrics;
  }

  /**
   * What these rows would take as Spark's UnsafeRows (a null bit set, 8 bytes per field, variable-length values
   * rounded up to 8 bytes): the size Spark's own exchange reports, which AQE compares with its thresholds.
   */
  static long unsafeRowBytes(List<FieldVector> columns, int rows) {
    long perRow = 8L * ((columns.size() + 63) / 64) + 8L * columns.size();
    long bytes = perRow * rows;
    for (FieldVector v : columns) {
      if (v instanceof BaseVariableWidthVector var) {
        ArrowBuf offsets = var.getOffsetBuffer();
        for (int i = 0; i < rows; i++) {
          if (var.isNull(i)) continue;
          int length = offsets.getInt(4L * (i + 1)) - offsets.getInt(4L * i);
          bytes += (length + 7) & ~7;
        }
      } else if (v instanceof DecimalVector d && d.getPrecision() > 18) {
        bytes += 16L * (rows - d.getNullCount());
      }
    }
    return bytes;
  }
}
