package io.sparkwarp.plugin.rewrite;

import io.sparkwarp.plugin.exec.GpuShuffleExchangeExec;
import java.util.List;
import org.apache.spark.sql.catalyst.plans.physical.RoundRobinPartitioning;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AQEShuffleReadExec;
import org.apache.spark.sql.execution.adaptive.ShuffleQueryStageExec;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeLike;
import org.apache.spark.sql.internal.SQLConf;
import scala.jdk.javaapi.CollectionConverters;

/**
 * ShuffleExchangeExec: columnar from a GPU stage (hash, range, round-robin or single partitioning), so its rows are
 * never formed; over a CPU stage it stays Spark's, which shuffles rows as well as any. Round-robin over a shuffle's
 * output stays Spark's too while Spark sorts before repartitioning: the GPU exchange deals rows in arrival order,
 * which would make its map output indeterminate where Spark's is not (a lost block would then rerun the whole stage,
 * and a job whose result stage had finished tasks would abort).
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
    if (exchange.outputPartitioning() instanceof RoundRobinPartitioning rr && rr.numPartitions() > 1
        && SQLConf.get().sortBeforeRepartition() && readsAnyShuffle(exchange.child())) {
      willNotWorkOnGpu("round-robin over a shuffle's output: Spark sorts each task's rows first "
          + "(spark.sql.execution.sortBeforeRepartition) so that a retried task places them alike whatever order "
          + "the shuffle delivers them in; the GPU exchange deals them in arrival order");
    }
  }

  /** Whether {@code plan} reads a shuffle anywhere: its rows then arrive in an order a retry may not repeat. */
  private static boolean readsAnyShuffle(SparkPlan plan) {
    if (plan instanceof ShuffleQueryStageExec || plan instanceof ShuffleExchangeLike
        || plan instanceof AQEShuffleReadExec) {
      return true;
    }
    for (SparkPlan child : CollectionConverters.asJava(plan.children())) {
      if (readsAnyShuffle(child)) return true;
    }
    return false;
  }

  @Override
  protected SparkPlan convertToGpu(List<SparkPlan> gpuChildren) {
    return new GpuShuffleExchangeExec(exchange.outputPartitioning(), gpuChildren.get(0), exchange.shuffleOrigin(),
        exchange.advisoryPartitionSize());
  }
}
