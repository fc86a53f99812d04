package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.parquet.FileSplit;
import io.sparkwarp.parquet.ParquetBatchReader;
import io.sparkwarp.parquet.ScanColumn;
import io.sparkwarp.parquet.ScanSettings;
import io.sparkwarp.plugin.runtime.TaskGpu;
import java.io.Serializable;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.Partition;
import org.apache.spark.TaskContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.execution.datasources.FilePartition;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.SerializableConfiguration;
import org.apache.spark.util.TaskCompletionListener;
import scala.collection.Iterator;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag$;

/**
 * The RDD of a GPU Parquet scan: Spark's file partitions (and their preferred hosts), each computed as the device
 * batches of its files' splits; splits of equal partition values may share a batch, as its partition constants are
 * appended once. The reader is closed when the task ends, whether or not its batches were all read.
 */
final class ParquetScanRDD extends RDD<ColumnarBatch> {
  private final Partition[] filePartitions;
  private final List<List<FileSplit>> splits;
  private final Broadcast<SerializableConfiguration> conf;
  private final List<ScanColumn> columns;
  private final ScanSettings settings;
  private final PartitionColumns partitionColumns;
  private final List<Attribute> output;
  private final Metrics metrics;

  /**
   * The scan's partition columns and, per RDD partition and split, their values.
   *
   * @param timeZone the session's, for timestamp partition values
   */
  record PartitionColumns(StructType schema, List<List<InternalRow>> values, String timeZone)
      implements Serializable {}

  /** What a partition reports: rows, batches and time per batch, the reader's counters once it is done. */
  record Metrics(SQLMetric rows, SQLMetric batches, SQLMetric time, SQLMetric uploaded, SQLMetric readWait,
      SQLMetric deviceWait, SQLMetric decode, SQLMetric skippedRowGroups, SQLMetric skippedPages,
      SQLMetric splitBatches) implements Serializable {
    void addTotals(ParquetBatchReader reader) {
      uploaded.add(reader.uploadedBytes());
      readWait.add(reader.readWaitNanos());
      deviceWait.add(reader.deviceWaitNanos());
      decode.add(reader.decodeNanos());
      skippedRowGroups.add(reader.skippedRowGroups());
      skippedPages.add(reader.skippedPages());
      splitBatches.add(reader.splitBatches());
    }
  }

  ParquetScanRDD(org.apache.spark.SparkContext sc, Partition[] filePartitions, List<List<FileSplit>> splits,
      Broadcast<SerializableConfiguration> conf, List<ScanColumn> columns, ScanSettings settings,
      PartitionColumns partitionColumns, List<Attribute> output, Metrics metrics) {
    super(sc, CollectionConverters.asScala(List.<org.apache.spark.Dependency<?>>of()).toList(),
        ClassTag$.MODULE$.apply(ColumnarBatch.class));
    this.filePartitions = filePartitions;
    this.splits = splits;
    this.conf = conf;
    this.columns = columns;
    this.settings = settings;
    this.partitionColumns = partitionColumns;
    this.output = output;
    this.metrics = metrics;
  }

  @Override
  public Partition[] getPartitions() {
    return filePartitions;
  }

  @Override
  public Seq<String> getPreferredLocations(Partition split) {
    return CollectionConverters.asScala(List.of(((FilePartition) split).preferredLocations())).toList();
  }

  @Override
  public Iterator<ColumnarBatch> compute(Partition split, TaskContext context) {
    TaskGpu gpu = TaskGpu.get();
    ParquetBatchReader reader = new ParquetBatchReader(gpu.backend(), gpu.stream(), conf.value().value(),
        splits.get(split.index()), mergeKeys(partitionColumns.values().get(split.index())), columns, settings,
        gpu::acquireDevice);
    context.addTaskCompletionListener((TaskCompletionListener) ctx -> {
      reader.close();
      metrics.addTotals(reader);  // before the task's metrics are sent: listeners run first
    });
    return CollectionConverters.asScala(new LazyBatchIterator() {
      @Override
      protected ColumnarBatch computeNext() {
        long start = System.nanoTime();
        if (!reader.hasNext()) return null;
        DeviceBatch batch = reader.next();
        if (!partitionColumns.schema().isEmpty()) {
          batch = PartitionConstants.append(batch, partitionColumns.values().get(split.index()).get(reader.lastSplit()),
              partitionColumns.schema(), partitionColumns.timeZone(), gpu);
        }
        metrics.time().add(System.nanoTime() - start);
        metrics.rows().add(batch.rowCount());
        metrics.batches().add(1);
        return DeviceBatches.wrap(batch, output);
      }
    });
  }

  /** Per split, a key equal for splits of equal partition values (all equal when the scan reads none). */
  private static int[] mergeKeys(List<InternalRow> values) {
    Map<InternalRow, Integer> keys = new HashMap<>();
    return values.stream().mapToInt(v -> keys.computeIfAbsent(v, k -> keys.size())).toArray();
  }
}
