package io.sparkwarp.plugin.rewrite;

import java.util.List;
import java.util.function.BiFunction;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.FilterExec;
import org.apache.spark.sql.execution.ProjectExec;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.TakeOrderedAndProjectExec;
import org.apache.spark.sql.execution.UnionExec;
import org.apache.spark.sql.execution.aggregate.HashAggregateExec;
import org.apache.spark.sql.execution.aggregate.ObjectHashAggregateExec;
import org.apache.spark.sql.execution.aggregate.SortAggregateExec;
import org.apache.spark.sql.execution.exchange.BroadcastExchangeExec;
import org.apache.spark.sql.execution.exchange.ShuffleExchangeExec;
import org.apache.spark.sql.execution.joins.BroadcastHashJoinExec;
import org.apache.spark.sql.execution.joins.ShuffledHashJoinExec;
import org.apache.spark.sql.execution.joins.SortMergeJoinExec;

/**
 * The registry of Spark operators that have a GPU version: adding an operator is one entry here, one meta and one
 * GPU exec node. Operators without an entry stay on the CPU with the reason "no GPU version of X".
 */
public final class Overrides {
  /**
   * @param sparkClass the Spark operator replaced
   * @param description what replaces it, for docs and config
   * @param meta builds the operator's meta
   */
  public record ExecRule(Class<? extends SparkPlan> sparkClass, String description,
      BiFunction<SparkPlan, RewriteContext, ExecMeta> meta) {
    /** The Spark operator's class name, which also names its config switch. */
    public String sparkName() {
      return sparkClass.getSimpleName();
    }
  }

  private static final List<ExecRule> RULES = List.of(
      new ExecRule(FileSourceScanExec.class, "GpuParquetScanExec, Parquet files read as compressed pages and "
          + "decompressed and decoded on the GPU", (plan, ctx) -> new ParquetScanMeta((FileSourceScanExec) plan, ctx,
          ruleFor(FileSourceScanExec.class))),
      new ExecRule(FilterExec.class, "GpuFilterExec, the predicate evaluated and the rows compacted on the GPU",
          (plan, ctx) -> new FilterMeta((FilterExec) plan, ctx, ruleFor(FilterExec.class))),
      new ExecRule(ProjectExec.class, "GpuProjectExec, the projection evaluated on the GPU",
          (plan, ctx) -> new ProjectMeta((ProjectExec) plan, ctx, ruleFor(ProjectExec.class))),
      new ExecRule(UnionExec.class, "GpuUnionExec, the inputs' device batches passed on as they are",
          (plan, ctx) -> new UnionMeta((UnionExec) plan, ctx, ruleFor(UnionExec.class))),
      new ExecRule(ShuffledHashJoinExec.class, "GpuShuffledHashJoinExec, a hash join of each partition on the GPU "
          + "(merge path for partitions whose build keys repeat; GpuSortMergeJoinExec under "
          + "spark.warp.join.algorithm=mergePath)",
          (plan, ctx) -> new JoinMeta(plan, ctx, ruleFor(ShuffledHashJoinExec.class))),
      new ExecRule(SortMergeJoinExec.class, "GpuShuffledHashJoinExec (no sort needed), a hash join of each "
          + "partition on the GPU (merge path for partitions whose build keys repeat), or GpuSortMergeJoinExec, a "
          + "merge-path join sorting on the GPU, under spark.warp.join.algorithm=mergePath",
          (plan, ctx) -> new JoinMeta(plan, ctx, ruleFor(SortMergeJoinExec.class))),
      new ExecRule(BroadcastHashJoinExec.class, "GpuBroadcastHashJoinExec, the broadcast built once per executor on "
          + "the GPU and probed there", (plan, ctx) -> new JoinMeta(plan, ctx, ruleFor(BroadcastHashJoinExec.class))),
      new ExecRule(HashAggregateExec.class, "GpuHashAggregateExec, group-by hash aggregation on the GPU in every "
          + "mode", (plan, ctx) -> new AggregateMeta(plan, ctx, ruleFor(HashAggregateExec.class))),
      new ExecRule(ObjectHashAggregateExec.class, "GpuHashAggregateExec, when every function has a GPU version",
          (plan, ctx) -> new AggregateMeta(plan, ctx, ruleFor(ObjectHashAggregateExec.class))),
      new ExecRule(SortAggregateExec.class, "GpuHashAggregateExec (no sort needed), group-by hash aggregation on "
          + "the GPU", (plan, ctx) -> new AggregateMeta(plan, ctx, ruleFor(SortAggregateExec.class))),
      new ExecRule(ShuffleExchangeExec.class, "GpuShuffleExchangeExec, a GPU stage's output partitioned by Spark's "
          + "hash or ranges and shuffled as columnar slices, read back as large host Arrow batches", (plan, ctx) ->
          new ShuffleExchangeMeta((ShuffleExchangeExec) plan, ctx, ruleFor(ShuffleExchangeExec.class))),
      new ExecRule(BroadcastExchangeExec.class, "GpuBroadcastExchangeExec, a GPU build side collected and broadcast "
          + "as columnar slices, uploaded once per executor device, where only GPU broadcast hash joins read it",
          (plan, ctx) -> new BroadcastExchangeMeta((BroadcastExchangeExec) plan, ctx,
              ruleFor(BroadcastExchangeExec.class))),
      new ExecRule(SortExec.class, "GpuSortExec, each partition sorted on the GPU (over GPU input or a GPU "
          + "shuffle, such as the range exchange of a global ORDER BY)", (plan, ctx) ->
          new SortMeta((SortExec) plan, ctx, ruleFor(SortExec.class))),
      new ExecRule(TakeOrderedAndProjectExec.class, "GpuTopNExec under Spark's operator, each partition of a GPU "
          + "input cut to its top N rows on the GPU so only those are downloaded", (plan, ctx) ->
          new TopNMeta((TakeOrderedAndProjectExec) plan, ctx, ruleFor(TakeOrderedAndProjectExec.class))));

  private Overrides() {}

  public static List<ExecRule> rules() {
    return RULES;
  }

  private static ExecRule ruleFor(Class<? extends SparkPlan> type) {
    return RULES.stream().filter(r -> r.sparkClass() == type).findFirst().orElseThrow();
  }

  /**
   * The meta of {@code plan}: its registry entry's, or one that keeps it on the CPU (also when building the entry's
   * meta failed: then the reason is the internal error).
   */
  static ExecMeta wrap(SparkPlan plan, RewriteContext context) {
    for (ExecRule rule : RULES) {
      if (rule.sparkClass() != plan.getClass()) continue;
      try {
        return rule.meta().apply(plan, context);
      } catch (Throwable t) {
        return new CpuOnlyMeta(plan, context, context.internalErrors().record(plan.nodeName(), t));
      }
    }
    return new CpuOnlyMeta(plan, context, "no GPU version of " + plan.nodeName());
  }

  /** An operator that stays on the CPU: tagging records why, conversion keeps it and fixes its children. */
  private static final class CpuOnlyMeta extends ExecMeta {
    private final String reason;

    CpuOnlyMeta(SparkPlan plan, RewriteContext context, String reason) {
      super(plan, context, null);
      this.reason = reason;
    }

    @Override
    protected String whyNoGpuVersion() {
      return reason;
    }

    @Override
    protected void tagSelf() {}

    @Override
    protected SparkPlan convertToGpu(List<SparkPlan> gpuChildren) {
      throw new IllegalStateException(plan.nodeName() + " has no GPU version");
    }
  }
}
