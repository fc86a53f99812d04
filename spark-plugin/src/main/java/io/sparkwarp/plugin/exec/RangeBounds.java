package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.sort.SortKey;
import io.sparkwarp.plugin.runtime.TaskGpu;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.RangePartitioner;
import org.apache.spark.rdd.PartitionPruningRDD;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection$;
import org.apache.spark.sql.catalyst.expressions.codegen.LazilyGeneratedOrdering;
import org.apache.spark.sql.catalyst.plans.physical.RangePartitioning;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.Tuple2;
import scala.Tuple3;
import scala.collection.mutable.ArrayBuffer;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction1;

/**
 * The bounds of Spark's range partitioning for a GPU stage, and their upload: sampled on the driver the way
 * Spark's {@code RangePartitioner} samples (a reservoir sketch of every input partition, the imbalanced ones sampled
 * again, bounds weighted by the rows each sample stands for), from the sort keys alone, downloaded from the device
 * batches; the map tasks then place their rows by these bounds on the device ({@code PartitionedBatch.range}).
 * Serializable: it travels to the map tasks with the shuffle's writer.
 */
final class RangeBounds implements Serializable {
  /** The device sort keys over the exchange's input columns. */
  private final List<SortKey> keys;
  /** The sort keys' columns, in the keys' order: as attributes and as a schema. */
  private final List<Attribute> keyColumns;
  private final StructType keySchema;
  private final String timeZone;
  /** Sorted and distinct under the keys' order; partitions = bounds + 1. */
  private final InternalRow[] bounds;

  private RangeBounds(List<SortKey> keys, List<Attribute> keyColumns, StructType keySchema, String timeZone,
      InternalRow[] bounds) {
    this.keys = keys;
    this.keyColumns = keyColumns;
    this.keySchema = keySchema;
    this.timeZone = timeZone;
    this.bounds = bounds;
  }

  List<SortKey> keys() {
    return keys;
  }

  int count() {
    return bounds.length;
  }

  /**
   * Samples {@code input} (a run of the exchange's child: the keys are downloaded, nothing else) for the bounds of
   * {@code range}, as RangePartitioner does with {@code spark.sql.execution.rangeExchange.sampleSizePerPartition}
   * points per output partition.
   */
  static RangeBounds sample(RDD<ColumnarBatch> input, RangePartitioning range, List<Attribute> output,
      String timeZone) {
    List<SortOrder> orders = CollectionConverters.asJava(range.ordering());
    List<SortKey> keys = SortKeys.of(range.ordering(), output);
    List<StructField> fields = new ArrayList<>();
    List<SortOrder> onKeyRows = new ArrayList<>();
    for (int k = 0; k < keys.size(); k++) {
      Attribute column = output.get(keys.get(k).column());
      fields.add(new StructField("k" + k, column.dataType(), column.nullable(),
          org.apache.spark.sql.types.Metadata.empty()));
      SortOrder order = orders.get(k);
      onKeyRows.add(new SortOrder(new BoundReference(k, column.dataType(), column.nullable()), order.direction(),
          order.nullOrdering(), CollectionConverters.asScala(List.<Expression>of()).toSeq()));
    }
    StructType keySchema = new StructType(fields.toArray(StructField[]::new));
    scala.math.Ordering<InternalRow> ordering = new LazilyGeneratedOrdering(
        CollectionConverters.asScala(onKeyRows).toSeq());
    int[] columns = keys.stream().mapToInt(SortKey::column).toArray();
    List<String> names = fields.stream().map(StructField::name).toList();
    RDD<InternalRow> keyRows = Partitions.mapTo(input, batches -> keyRows(batches, columns, names, keySchema),
        InternalRow.class);
    InternalRow[] bounds = bounds(keyRows, range.numPartitions(),
        SQLConf.get().rangeExchangeSampleSizePerPartition(), ordering);
    List<Attribute> keyColumns = keys.stream().map(k -> output.get(k.column())).toList();
    return new RangeBounds(keys, new ArrayList<>(keyColumns), keySchema, timeZone, bounds);
  }

  /** RangePartitioner's bounds of {@code keyRows} (its constructor's code, which Spark keeps private). */
  private static InternalRow[] bounds(RDD<InternalRow> keyRows, int partitions, int pointsPerPartition,
      scala.math.Ordering<InternalRow> ordering) {
    if (partitions <= 1) return new InternalRow[0];
    ClassTag<InternalRow> tag = ClassTag$.MODULE$.apply(InternalRow.class);
    double sampleSize = Math.min((double) pointsPerPartition * partitions, 1e6);
    int perPartition = (int) Math.ceil(3.0 * sampleSize / keyRows.partitions().length);
    Tuple2<Object, Tuple3<Object, Object, Object>[]> sketch = RangePartitioner.sketch(keyRows, perPartition, tag);
    long items = (Long) sketch._1();
    if (items == 0) return new InternalRow[0];
    double fraction = Math.min(sampleSize / Math.max(items, 1L), 1.0);
    ArrayBuffer<Tuple2<InternalRow, Object>> candidates = new ArrayBuffer<>();
    Set<Integer> imbalanced = new HashSet<>();
    for (Tuple3<Object, Object, Object> partition : sketch._2()) {
      int index = (Integer) partition._1();
      long n = (Long) partition._2();
      InternalRow[] sample = (InternalRow[]) partition._3();
      if (fraction * n > perPartition) {
        imbalanced.add(index);
      } else {
        float weight = (float) ((double) n / sample.length);
        for (InternalRow key : sample) candidates.addOne(new Tuple2<>(key, weight));
      }
    }
    if (!imbalanced.isEmpty()) {
      RDD<InternalRow> pruned = new PartitionPruningRDD<>(keyRows, new IndexIn(imbalanced), tag);
      int seed = scala.util.hashing.package$.MODULE$.byteswap32(-keyRows.id() - 1);
      Object resampled = pruned.sample(false, fraction, seed).collect();
      float weight = (float) (1.0 / fraction);
      for (InternalRow key : (InternalRow[]) resampled) candidates.addOne(new Tuple2<>(key, weight));
    }
    Object bounds = RangePartitioner.determineBounds(candidates, Math.min(partitions, candidates.size()), ordering,
        tag);
    return (InternalRow[]) bounds;
  }

  /** Whether a partition index is among some: the filter of a PartitionPruningRDD. */
  private static final class IndexIn extends AbstractFunction1<Object, Object> implements Serializable {
    private final Set<Integer> indices;

    IndexIn(Set<Integer> indices) {
      this.indices = indices;
    }

    @Override
    public Object apply(Object index) {
      return indices.contains((Integer) index);
    }
  }

  /** Each batch's key columns downloaded and turned into rows (copies: the sketch keeps some). */
  private static Iterator<InternalRow> keyRows(Iterator<ColumnarBatch> batches, int[] columns, List<String> names,
      StructType keySchema) {
    TaskGpu gpu = TaskGpu.get();
    UnsafeProjection toUnsafe = UnsafeProjection$.MODULE$.create(keySchema);
    return new Iterator<>() {
      private final List<InternalRow> rows = new ArrayList<>();
      private int next;

      @Override
      public boolean hasNext() {
        while (next == rows.size() && batches.hasNext()) {
          rows.clear();
          next = 0;
          download(batches.next());
        }
        return next < rows.size();
      }

      @Override
      public InternalRow next() {
        if (!hasNext()) throw new java.util.NoSuchElementException();
        return rows.get(next++);
      }

      private void download(ColumnarBatch batch) {
        DeviceBatches.Downloaded keys;
        try (DeviceBatch onDevice = DeviceBatches.unwrap(batch)) {
          List<io.sparkwarp.kernels.batch.DeviceColumn> keyColumns = Arrays.stream(columns)
              .mapToObj(onDevice::column).toList();
          // a view of the batch's key columns: closing the batch frees them
          keys = DeviceBatches.download(new DeviceBatch(keyColumns, onDevice.rowCount()), names, gpu);
        }
        gpu.releaseDeviceIfIdle();  // the batch is freed only now
        ColumnVector[] vectors = keys.vectors().stream().map(ArrowColumnVector::new).toArray(ColumnVector[]::new);
        try (ColumnarBatch onHost = new ColumnarBatch(vectors, keys.rows())) {
          Iterator<InternalRow> it = onHost.rowIterator();
          while (it.hasNext()) rows.add(toUnsafe.apply(it.next()).copy());
        }
      }
    };
  }

  /** The bounds as a device batch on the task's device, one column per key (the caller closes it). */
  DeviceBatch upload(TaskGpu gpu) {
    try (HostBatchBuilder builder = new HostBatchBuilder(keySchema, timeZone, gpu.hostAllocator())) {
      builder.appendRows(Arrays.asList(bounds).iterator(), Integer.MAX_VALUE, Long.MAX_VALUE);
      try (VectorSchemaRoot root = builder.take()) {
        if (root == null) {
          return DeviceBatches.empty(gpu.backend(), DeviceBatches.types(keyColumns, timeZone), gpu.stream());
        }
        DeviceBatch batch = ArrowUpload.upload(gpu.backend(), root, gpu.stream());
        gpu.stream().synchronize();  // the pinned rows are freed next
        return batch;
      }
    }
  }
}
