package io.sparkwarp.plugin.exec;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.plans.physical.Distribution;
import org.apache.spark.sql.catalyst.plans.physical.OrderedDistribution;
import org.apache.spark.sql.catalyst.plans.physical.UnspecifiedDistribution$;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * SortExec on the GPU: each partition's batches are concatenated on the device and sorted there at once by
 * Spark's order ({@link io.sparkwarp.kernels.sort.DeviceSort}: stable, nulls and NaN placed as Spark places them,
 * strings by UTF-8 bytes).
 * Under a global sort the partitions are ranges from the range exchange below, so their concatenation is the total
 * order. A partition whose input outgrows {@code runBytes} is sorted in runs that spill to host memory and are merged
 * on the device ({@link SortedRuns}), as Spark's sorter spills.
 */
public final class GpuSortExec extends UnaryExec implements GpuExec {
  private final Seq<SortOrder> sortOrder;
  private final boolean global;
  /** Device bytes of input a partition sorts at once; a larger one is sorted in runs of this size and merged. */
  private final long runBytes;

  public GpuSortExec(Seq<SortOrder> sortOrder, boolean global, SparkPlan child, long runBytes) {
    super(child, GpuMetrics.sort(child.sparkContext()));
    this.sortOrder = sortOrder;
    this.global = global;
    this.runBytes = runBytes;
  }

  @Override
  public String nodeName() {
    return "GpuSort";
  }

  @Override
  public RDD<ColumnarBatch> doExecuteColumnar() {
    List<Attribute> output = new ArrayList<>(CollectionConverters.asJava(child.output()));
    return Partitions.map(child.executeColumnar(), new SortedRuns(SortKeys.of(sortOrder, output), output, runBytes,
        this));
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
    return new GpuSortExec(sortOrder, global, newChild, runBytes);
  }

  @Override
  protected Object[] constructorArgs() {
    return new Object[] {sortOrder, global, child, runBytes};
  }
}
