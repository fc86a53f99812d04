package io.sparkwarp.plugin.rewrite;

import io.sparkwarp.plugin.PluginState;
import io.sparkwarp.plugin.config.WarpConf;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.exchange.BroadcastExchangeExec;
import org.apache.spark.sql.internal.SQLConf;

/**
 * Adaptive execution's query stage preparation rule (run over the whole plan before it makes query stages, and over
 * each re-optimised plan): tags and checks the plan as {@link PlanRewrite} would and leaves on each broadcast
 * exchange the verdict on its readers ({@link BroadcastExchangeMeta#JUDGED}), which the rewrite of its query stage,
 * seeing the exchange alone, goes by. Changes nothing else; on any error the exchanges stay Spark's.
 */
public final class JudgeBroadcasts extends Rule<SparkPlan> {
  @Override
  public SparkPlan apply(SparkPlan plan) {
    if (!plan.exists(p -> p instanceof BroadcastExchangeExec)) return plan;
    plan.foreach(p -> {
      p.unsetTagValue(BroadcastExchangeMeta.JUDGED);  // a verdict of an earlier plan no longer holds
      return scala.runtime.BoxedUnit.UNIT;
    });
    SQLConf sqlConf = SQLConf.get();
    try {
      WarpConf conf = WarpConf.of(sqlConf);
      if (!conf.get(WarpConf.ENABLED) || !PluginState.active()) return plan;
      leaveVerdicts(PlanRewrite.tagged(plan, RewriteContext.of(sqlConf)));
    } catch (Throwable t) {
      // unjudged exchanges stay Spark's; the rewrite of the stages records its own errors
    }
    return plan;
  }

  private static void leaveVerdicts(ExecMeta meta) {
    if (meta instanceof BroadcastExchangeMeta b) b.leaveVerdict();
    meta.children.forEach(JudgeBroadcasts::leaveVerdicts);
  }
}
