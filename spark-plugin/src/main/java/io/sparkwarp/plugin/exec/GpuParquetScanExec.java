package io.sparkwarp.plugin.exec;

import io.sparkwarp.parquet.FileSplit;
import io.sparkwarp.parquet.ScanColumn;
import io.sparkwarp.parquet.ScanSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.spark.Partition;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.FilePartition;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.SerializableConfiguration;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag$;

/**
 * Spark's Parquet scan on the GPU: the same file partitions Spark planned (its splits, its dynamic pruning, its
 * preferred hosts), each read by a {@link io.sparkwarp.parquet.ParquetBatchReader} into device batches, so the first
 * GPU operator of the stage takes them without a transition. Partition columns are appended as constants per batch
 * (its files share their partition values). Spark's filters stay above the scan.
 */
public final class GpuParquetScanExec extends SparkwarpExec implements GpuExec {
  private final FileSourceScanExec scan;
  private final List<ScanColumn> columns;
  private final ScanSettings settings;
  /** Codecs of the files that the reader threads decompress (rather than the device), for explain. */
  private final Set<CompressionCodecName> hostDecompressed;

  public GpuParquetScanExec(FileSourceScanExec scan, List<ScanColumn> columns, ScanSettings settings,
      Set<CompressionCodecName> hostDecompressed) {
    super(GpuMetrics.scan(scan.sparkContext()));
    this.scan = scan;
    this.columns = List.copyOf(columns);
    this.settings = settings;
    this.hostDecompressed = Set.copyOf(hostDecompressed);
  }

  @Override
  public RDD<ColumnarBatch> doExecuteColumnar() {
    HadoopFsRelation relation = scan.relation();
    SerializableConfiguration conf = new SerializableConfiguration(
        relation.sparkSession().sessionState().newHadoopConfWithOptions(relation.options()));
    // Spark's scan lists its files only after its own subqueries (a scalar one in a pushed filter, dynamic partition
    // pruning's) have finished, which executing it waits for; the RDD it returns is lazy and never computed
    if (scan.supportsColumnar()) {
      scan.executeColumnar();
    } else {
      scan.execute();
    }
    Partition[] partitions = scan.inputRDD().partitions();
    // the output's partition columns follow the data columns (FileSourceStrategy's order)
    List<Attribute> attributes = CollectionConverters.asJava(output());
    List<String> partitionNames = attributes.subList(columns.size(), attributes.size()).stream()
        .map(Attribute::name).toList();
    int[] positions = PartitionConstants.positions(relation.partitionSchema(), partitionNames);
    StructType partitionSchema = PartitionConstants.select(relation.partitionSchema(), positions);
    List<List<FileSplit>> splits = new ArrayList<>();
    List<List<InternalRow>> partitionValues = new ArrayList<>();
    for (Partition p : partitions) {
      List<FileSplit> files = new ArrayList<>();
      List<InternalRow> values = new ArrayList<>();
      for (PartitionedFile f : ((FilePartition) p).files()) {
        files.add(new FileSplit(f.toPath().toUri().toString(), f.start(), f.length()));
        Object[] row = new Object[positions.length];
        for (int i = 0; i < positions.length; i++) {
          row[i] = f.partitionValues().get(positions[i], partitionSchema.fields()[i].dataType());
        }
        values.add(new GenericInternalRow(row));
      }
      splits.add(files);
      partitionValues.add(values);
    }
    ParquetScanRDD.Metrics metrics = new ParquetScanRDD.Metrics(metric(GpuMetrics.OUTPUT_ROWS),
        metric(GpuMetrics.OUTPUT_BATCHES), metric(GpuMetrics.GPU_TIME), metric(GpuMetrics.TRANSFER_BYTES),
        metric(GpuMetrics.READ_WAIT), metric(GpuMetrics.DEVICE_WAIT), metric(GpuMetrics.DECODE_TIME),
        metric(GpuMetrics.SKIPPED_ROW_GROUPS), metric(GpuMetrics.SKIPPED_PAGES), metric(GpuMetrics.SPLIT_BATCHES));
    return new ParquetScanRDD(sparkContext(), partitions, splits,
        sparkContext().broadcast(conf, ClassTag$.MODULE$.apply(SerializableConfiguration.class)), columns, settings,
        new ParquetScanRDD.PartitionColumns(partitionSchema, partitionValues, conf().sessionLocalTimeZone()),
        new ArrayList<>(attributes), metrics);
  }

  @Override
  public Seq<Attribute> output() {
    return scan.output();
  }

  @Override
  public Seq<SparkPlan> children() {
    return CollectionConverters.asScala(List.<SparkPlan>of()).toList();
  }

  @Override
  public SparkPlan withNewChildrenInternal(scala.collection.immutable.IndexedSeq<SparkPlan> newChildren) {
    return this;
  }

  @Override
  public String nodeName() {
    return "GpuParquetScan";
  }

  @Override
  public String simpleString(int maxFields) {
    return "GpuParquetScan " + scan.relation().location() + " " + columns.stream().map(ScanColumn::name).toList()
        + (hostDecompressed.isEmpty() ? "" : ", " + new TreeSet<>(hostDecompressed) + " pages decompressed by CPU "
            + "reader threads");
  }

  @Override
  protected Object[] constructorArgs() {
    return new Object[] {scan, columns, settings, hostDecompressed};
  }

  /**
   * Over Spark's scan canonicalized (the scan is an argument, not a child, so Spark would leave its attribute ids
   * as they are): equal GPU subtrees then compare equal, and Spark reuses their exchanges.
   */
  @Override
  public SparkPlan doCanonicalize() {
    return new GpuParquetScanExec((FileSourceScanExec) scan.canonicalized(), columns, settings, hostDecompressed);
  }
}
