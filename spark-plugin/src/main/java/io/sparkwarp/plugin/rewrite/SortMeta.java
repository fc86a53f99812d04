package io.sparkwarp.plugin.rewrite;

import io.sparkwarp.plugin.config.WarpConf;
import io.sparkwarp.plugin.exec.GpuShuffleExchangeExec;
import io.sparkwarp.plugin.exec.GpuSortExec;
import io.sparkwarp.plugin.exec.SortKeys;
import java.util.List;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AQEShuffleReadExec;
import org.apache.spark.sql.execution.adaptive.ShuffleQueryStageExec;
import org.apache.spark.sql.execution.exchange.ReusedExchangeExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * SortExec: on the GPU when its rows are already there or come from a GPU shuffle (the range exchange under a global
 * sort), so a stage's output is sorted where it was made; over a CPU operator it stays Spark's, since uploading
 * rows only to sort them would cost more than the sort.
 */
final class SortMeta extends ExecMeta {
  private final SortExec sort;

  SortMeta(SortExec sort, RewriteContext context, Overrides.ExecRule rule) {
    super(sort, context, rule);
    this.sort = sort;
  }

  @Override
  protected void tagSelf() {
    if (!children.get(0).canRunOnGpu() && !readsGpuShuffle(sort.child())) {
      willNotWorkOnGpu("its input is not on the GPU (a GPU sort there would first upload every row)");
    }
    SortKeys.whyNot(sort.sortOrder(), CollectionConverters.asJava(sort.child().output()))
        .ifPresent(this::willNotWorkOnGpu);
  }

  /** Whether {@code plan} reads a shuffle that a GPU stage wrote (columnar batches, no rows to upload). */
  static boolean readsGpuShuffle(SparkPlan plan) {
    SparkPlan p = plan instanceof AQEShuffleReadExec read ? read.child() : plan;
    if (p instanceof ShuffleQueryStageExec stage) p = stage.plan();
    if (p instanceof ReusedExchangeExec reused) p = reused.child();
    return p instanceof GpuShuffleExchangeExec;
  }

  /** The input a partition sorts at once: the setting, at most a quarter of the device memory a task is counted for. */
  private long runBytes() {
    return Math.min(context.conf().get(WarpConf.SORT_RUN_BYTES),
        Math.max(1, context.conf().get(WarpConf.TASK_DEVICE_RESERVE) / 4));
  }

  @Override
  protected SparkPlan convertToGpu(List<SparkPlan> gpuChildren) {
    return new GpuSortExec(sort.sortOrder(), sort.global(), gpuChildren.get(0), runBytes());
  }
}
