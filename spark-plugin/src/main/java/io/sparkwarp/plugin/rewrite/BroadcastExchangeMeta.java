package io.sparkwarp.plugin.rewrite;

import io.sparkwarp.plugin.exec.GpuBroadcastExchangeExec;
import io.sparkwarp.plugin.exec.GpuShuffleExchangeExec;
import java.util.List;
import org.apache.spark.sql.catalyst.trees.TreeNodeTag;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.exchange.BroadcastExchangeExec;
import org.apache.spark.sql.execution.joins.HashedRelationBroadcastMode;

/**
 * BroadcastExchangeExec: columnar ({@link GpuBroadcastExchangeExec}) when its input is a GPU plan and every reader
 * is a GPU broadcast hash join; any other reader (a CPU join, dynamic partition pruning, a reuse of the same
 * broadcast by one of those) reads Spark's HashedRelation, so then Spark's exchange stays. The readers are checked
 * after tagging ({@link BroadcastReaders}), where they are in view; under adaptive execution the exchange is
 * rewritten alone as its query stage is made, so the whole plan was judged before and the verdict left on the
 * exchange ({@link #JUDGED}).
 */
final class BroadcastExchangeMeta extends ExecMeta {
  /**
   * Why a Spark exchange stays Spark's (empty: it need not), judged over the whole plan before adaptive execution
   * cuts it into query stages ({@link PlanRewrite#judgeBroadcasts}); tags move with the node as AQE copies it.
   */
  static final TreeNodeTag<List<String>> JUDGED = TreeNodeTag.apply("sparkwarp.broadcastJudged");

  final BroadcastExchangeExec exchange;

  BroadcastExchangeMeta(BroadcastExchangeExec exchange, RewriteContext context, Overrides.ExecRule rule) {
    super(exchange, context, rule);
    this.exchange = exchange;
  }

  @Override
  protected void tagSelf() {
    if (!(exchange.mode() instanceof HashedRelationBroadcastMode)) {
      willNotWorkOnGpu("a broadcast of rows (" + exchange.mode().getClass().getSimpleName() + ") has no GPU reader");
    }
    // a GPU plan, or adaptive execution's read of a GPU shuffle (a shuffled join it turned into a broadcast)
    if (!children.get(0).canRunOnGpu() && GpuShuffleExchangeExec.readOf(exchange.child()).isEmpty()) {
      willNotWorkOnGpu("its input is not on the GPU: Spark's exchange collects rows as well");
    }
  }

  /** The reasons judged over the whole plan ({@link #JUDGED}); null where it was not judged. */
  List<String> readerReasons() {
    scala.Option<List<String>> judged = exchange.getTagValue(JUDGED);
    return judged.isDefined() ? judged.get() : null;
  }

  /** Leaves this meta's verdict on the exchange, for the rewrite of its query stage. */
  void leaveVerdict() {
    exchange.setTagValue(JUDGED, List.copyOf(reasons()));
  }

  @Override
  protected SparkPlan convertToGpu(List<SparkPlan> gpuChildren) {
    return new GpuBroadcastExchangeExec(exchange.mode(), gpuChildren.get(0));
  }
}
