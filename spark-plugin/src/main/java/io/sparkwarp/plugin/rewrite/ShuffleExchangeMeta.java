package io.sparkwarp.plugin.rewrite;

import io.sparkwarp.plugin.exec.GpuShuffleExchangeExec;
import java.util.List;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec;

/**
 * ShuffleExchangeExec: columnar from a GPU stage (hash, range, round-robin or single partitioning), so its rows are
 * never formed; over a CPU stage it stays Spark's, which shuffles rows as well as any.
 */
final class ShuffleExchangeMeta extends ExecMeta {
  private final ShuffleExchangeExec exchange;

  ShuffleExchangeMeta(ShuffleExchangeExec exchange, RewriteContext context, Overrides.ExecRule rule) {
    super(exchange, context, rule);
    this.exchange = exchange;
  }

  @Override
  protected void tagSelf() {
    if (!children.get(0).canRunOnGpu()) {
      willNotWorkOnGpu("its input is not on the GPU: Spark's row shuffle serves a CPU stage as well");
    }
    GpuShuffleExchangeExec.whyNot(exchange.outputPartitioning(), exchange.child().output())
        .ifPresent(this::willNotWorkOnGpu);
  }

  @Override
  protected SparkPlan convertToGpu(List<SparkPlan> gpuChildren) {
    return new GpuShuffleExchangeExec(exchange.outputPartitioning(), gpuChildren.get(0), exchange.shuffleOrigin(),
        exchange.advisoryPartitionSize());
  }
}
