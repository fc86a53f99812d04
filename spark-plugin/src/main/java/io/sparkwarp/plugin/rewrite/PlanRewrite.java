package io.sparkwarp.plugin.rewrite;

import io.sparkwarp.plugin.PluginState;
import io.sparkwarp.plugin.config.WarpConf;
import io.sparkwarp.plugin.exec.GpuExec;
import io.sparkwarp.plugin.exec.GpuToHostExec;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.InputFileBlockLength;
import org.apache.spark.sql.catalyst.expressions.InputFileBlockStart;
import org.apache.spark.sql.catalyst.expressions.InputFileName;
import org.apache.spark.sql.catalyst.rules.Rule;
import org.apache.spark.sql.execution.FileSourceScanLike;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import org.apache.spark.sql.execution.exchange.Exchange;
import org.apache.spark.sql.internal.SQLConf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The rewrite, run by Spark before it inserts its own row/columnar transitions (so also inside every AQE query
 * stage and after each re-optimisation): wrap every operator in a meta, keep what reads the current input file on
 * the CPU, tag, check who reads each broadcast ({@link BroadcastReaders}), convert, and log what stayed on the CPU
 * per {@code spark.warp.explain}. Under adaptive execution {@link JudgeBroadcasts} first sees the whole plan, as
 * query stages only show their own part.
 */
public final class PlanRewrite extends Rule<SparkPlan> {
  private static final Logger LOG = LoggerFactory.getLogger(PlanRewrite.class);
  private static final String READS_INPUT_FILE = "input_file_name(), input_file_block_start() or "
      + "input_file_block_length() is read over a file scan: only Spark's reader and row-by-row operators up to it "
      + "keep the current file";

  @Override
  public SparkPlan apply(SparkPlan plan) {
    SQLConf sqlConf = SQLConf.get();
    WarpConf conf = WarpConf.of(sqlConf);
    ExplainMode explain = conf.get(WarpConf.EXPLAIN);  // parsed first: a bad value fails every query, not just some
    if (!conf.get(WarpConf.ENABLED) || !PluginState.active() || alreadyRewritten(plan)) return plan;
    RewriteContext context = RewriteContext.of(sqlConf);
    try {
      ExecMeta root = tagged(plan, context);
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

  /** The metas of {@code plan}, tagged, with every broadcast's readers checked. */
  static ExecMeta tagged(SparkPlan plan, RewriteContext context) {
    ExecMeta root = Overrides.wrap(plan, context);
    Set<ExecMeta> inputFileReads = new LinkedHashSet<>();
    findInputFileReads(root, null, inputFileReads);
    inputFileReads.forEach(meta -> meta.willNotWorkOnGpu(READS_INPUT_FILE));
    root.tag();
    BroadcastReaders.check(root);
    return root;
  }

  /**
   * Adds to {@code out} every operator from one that reads the current input file (input_file_name() and the like,
   * which Spark's file scan sets as it reads) down to the file scans of its stage: operators batching rows between
   * them would make the file stale (spark-rapids' InputFileBlockRule).
   *
   * @param chain the operators from the reading one down to {@code meta}'s parent; null when none reads above
   */
  private static void findInputFileReads(ExecMeta meta, List<ExecMeta> chain, Set<ExecMeta> out) {
    SparkPlan node = meta.plan;
    if (node instanceof Exchange) chain = null;  // another stage: its scan's file is not the one read above
    if (chain == null && node.expressions().exists(e -> e.exists(x -> x instanceof InputFileName
        || x instanceof InputFileBlockStart || x instanceof InputFileBlockLength))) {
      chain = List.of();
    }
    if (chain != null) {
      chain = new ArrayList<>(chain);
      chain.add(meta);
      if (node instanceof FileSourceScanLike || node instanceof BatchScanExec) out.addAll(chain);
    }
    for (ExecMeta child : meta.children) findInputFileReads(child, chain, out);
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
