package io.sparkwarp.plugin.rewrite;

import io.sparkwarp.plugin.PluginState;
import io.sparkwarp.plugin.config.WarpConf;
import io.sparkwarp.plugin.exec.GpuExec;
import io.sparkwarp.plugin.exec.GpuToHostExec;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.internal.SQLConf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rewrite, run by Spark before it inserts its own row/columnar transitions (so also inside every AQE query
 * stage and after each re-optimisation): wrap every operator in a meta, tag, convert, and log what stayed on the
 * CPU per {@code spark.warp.explain}.
 */
public final class PlanRewrite extends Rule<SparkPlan> {
  private static final Logger LOG = LoggerFactory.getLogger(PlanRewrite.class);

  @Override
  public SparkPlan apply(SparkPlan plan) {
    SQLConf sqlConf = SQLConf.get();
    WarpConf conf = WarpConf.of(sqlConf);
    ExplainMode explain = conf.get(WarpConf.EXPLAIN);  // parsed first: a bad value fails every query, not just some
    if (!conf.get(WarpConf.ENABLED) || !PluginState.active() || alreadyRewritten(plan)) return plan;
    RewriteContext context = RewriteContext.of(sqlConf);
    try {
      ExecMeta root = Overrides.wrap(plan, context);
      root.tag();
      SparkPlan converted = root.convert();
      if (converted instanceof GpuExec) converted = new GpuToHostExec(converted);
      log(root, explain);
      return converted;
    } catch (Throwable t) {
      // the operators catch their own errors; this is the net under everything else: Spark's plan, untouched
      context.internalErrors().record("the plan", t);
      return plan;
    } finally {
      context.internalErrors().log(LOG);
    }
  }

  /** AQE may hand a plan back that already holds GPU operators; rewriting it again would nest transitions. */
  private static boolean alreadyRewritten(SparkPlan plan) {
    return plan.find(p -> p instanceof GpuExec || p instanceof GpuToHostExec).isDefined();
  }

  private static void log(ExecMeta root, ExplainMode mode) {
    if (mode == ExplainMode.NONE || (mode == ExplainMode.NOT_ON_GPU && !root.anyOnCpu())) return;
    StringBuilder out = new StringBuilder();
    root.explain(out, 0, mode == ExplainMode.NOT_ON_GPU);
    LOG.warn("sparkwarp: {}\n{}", mode == ExplainMode.ALL ? "the plan on the GPU ('*') and the CPU ('!')"
        : "operators kept on the CPU", out);
  }
}
