package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.sort.DeviceSort;
import io.sparkwarp.kernels.sort.SortKey;
import io.sparkwarp.plugin.runtime.TaskGpu;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.plans.physical.Distribution;
import org.apache.spark.sql.catalyst.plans.physical.OrderedDistribution;
import org.apache.spark.sql.catalyst.plans.physical.UnspecifiedDistribution$;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * SortExec on the GPU: each partition's batches are concatenated on the device and sorted there at once by
 * Spark's order ({@link DeviceSort}: stable, nulls and NaN placed as Spark places them, strings by UTF-8 bytes).
 * Under a global sort the partitions are ranges from the range exchange below, so their concatenation is the total
 * order. A partition is held whole in device memory, as Spark's sorter holds it in memory until it spills.
 */
public final class GpuSortExec extends UnaryExec implements GpuExec {
  private final Seq<SortOrder> sortOrder;
  private final boolean global;

  public GpuSortExec(Seq<SortOrder> sortOrder, boolean global, SparkPlan child) {
    super(child, GpuMetrics.operator(child.sparkContext()));
    this.sortOrder = sortOrder;
    this.global = global;
  }

  @Override
  public String nodeName() {
    return "GpuSort";
  }

  @Override
  public RDD<ColumnarBatch> doExecuteColumnar() {
    List<Attribute> output = new ArrayList<>(CollectionConverters.asJava(child.output()));
    List<SortKey> keys = SortKeys.of(sortOrder, output);
    String timeZone = conf().sessionLocalTimeZone();
    SQLMetric rows = metric(GpuMetrics.OUTPUT_ROWS);
    SQLMetric batches = metric(GpuMetrics.OUTPUT_BATCHES);
    SQLMetric time = metric(GpuMetrics.GPU_TIME);
    return Partitions.map(child.executeColumnar(), input -> new LazyBatchIterator() {
      private boolean done;

      @Override
      protected ColumnarBatch computeNext() {
        if (done) return null;
        done = true;
        return sorted(input, keys, output, timeZone, rows, batches, time);
      }
    });
  }

  /** The partition's rows as one sorted device batch; null for a partition without rows. */
  private static ColumnarBatch sorted(Iterator<ColumnarBatch> input, List<SortKey> keys, List<Attribute> output,
      String timeZone, SQLMetric rows, SQLMetric batches, SQLMetric time) {
    if (!input.hasNext()) return null;
    TaskGpu gpu = TaskGpu.get();
    try (DeviceBatch whole = DeviceBatches.whole(gpu, input, output, timeZone)) {
      if (whole.rowCount() == 0) return null;
      long start = System.nanoTime();
      DeviceBatch sorted = DeviceSort.sort(gpu.backend(), whole, keys, gpu.stream());
      gpu.stream().synchronize();  // the unsorted batch is freed next
      time.add(System.nanoTime() - start);
      rows.add(sorted.rowCount());
      batches.add(1);
      return DeviceBatches.wrap(sorted, output);
    }
  }

  @Override
  public Seq<SortOrder> outputOrdering() {
    return sortOrder;
  }

  /** What Spark's SortExec requires, so re-planning finds the plan as valid as Spark's own. */
  @Override
  public Seq<Distribution> requiredChildDistribution() {
    Distribution d = global ? new OrderedDistribution(sortOrder) : UnspecifiedDistribution$.MODULE$;
    return CollectionConverters.asScala(List.of(d)).toList();
  }

  @Override
  public UnaryExec withChild(SparkPlan newChild) {
    return new GpuSortExec(sortOrder, global, newChild);
  }

  @Override
  protected Object[] constructorArgs() {
    return new Object[] {sortOrder, global, child};
  }
}
