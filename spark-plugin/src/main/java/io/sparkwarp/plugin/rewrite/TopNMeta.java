package io.sparkwarp.plugin.rewrite;

import io.sparkwarp.plugin.exec.GpuToHostExec;
import io.sparkwarp.plugin.exec.GpuTopNExec;
import io.sparkwarp.plugin.exec.SortKeys;
import java.util.List;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.TakeOrderedAndProjectExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * TakeOrderedAndProjectExec (ORDER BY ... LIMIT n): Spark's operator stays, and a {@link GpuTopNExec} under it cuts
 * each partition of a GPU input to its top n on the device, so only those rows are downloaded.
 */
final class TopNMeta extends ExecMeta {
  private final TakeOrderedAndProjectExec topN;

  TopNMeta(TakeOrderedAndProjectExec topN, RewriteContext context, Overrides.ExecRule rule) {
    super(topN, context, rule);
    this.topN = topN;
  }

  /** Rows each partition keeps: the limit counts after the offset is skipped. */
  private long keep() {
    return (long) topN.limit() + topN.offset();
  }

  @Override
  protected void tagSelf() {
    if (!children.get(0).canRunOnGpu()) {
      willNotWorkOnGpu("its input is not on the GPU (a top-N there would first upload every row)");
    }
    if (keep() > context.batchRows()) {
      willNotWorkOnGpu("limit " + keep() + " is above the batch size spark.warp.batch.targetRows ("
          + context.batchRows() + ")");
    }
    SortKeys.whyNot(topN.sortOrder(), CollectionConverters.asJava(topN.child().output()))
        .ifPresent(this::willNotWorkOnGpu);
  }

  @Override
  protected SparkPlan convertToGpu(List<SparkPlan> gpuChildren) {
    GpuTopNExec cut = new GpuTopNExec((int) keep(), topN.sortOrder(), gpuChildren.get(0));
    return topN.withNewChildren(CollectionConverters.asScala(List.<SparkPlan>of(new GpuToHostExec(cut))).toSeq());
  }
}
