package io.sparkwarp.plugin.rewrite;

import java.util.List;
import java.util.function.BiFunction;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.FilterExec;
import org.apache.spark.sql.execution.ProjectExec;
import org.apache.spark.sql.execution.SparkPlan;
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
      new ExecRule(ShuffledHashJoinExec.class, "GpuShuffledHashJoinExec, a hash join of each partition on the GPU",
          (plan, ctx) -> new JoinMeta(plan, ctx, ruleFor(ShuffledHashJoinExec.class))),
      new ExecRule(SortMergeJoinExec.class, "GpuShuffledHashJoinExec (no sort needed), a hash join of each "
          + "partition on the GPU", (plan, ctx) -> new JoinMeta(plan, ctx, ruleFor(SortMergeJoinExec.class))),
      new ExecRule(BroadcastHashJoinExec.class, "GpuBroadcastHashJoinExec, the broadcast built once per executor on "
          + "the GPU and probed there", (plan, ctx) -> new JoinMeta(plan, ctx, ruleFor(BroadcastHashJoinExec.class))));

  private Overrides() {}

  public static List<ExecRule> rules() {
    return RULES;
  }

  private static ExecRule ruleFor(Class<? extends SparkPlan> type) {
    return RULES.stream().filter(r -> r.sparkClass() == type).findFirst().orElseThrow();
  }

  /** The meta of {@code plan}: its registry entry's, or one that keeps it on the CPU. */
  static ExecMeta wrap(SparkPlan plan, RewriteContext context) {
    for (ExecRule rule : RULES) {
      if (rule.sparkClass() == plan.getClass()) return rule.meta().apply(plan, context);
    }
    return new CpuOnlyMeta(plan, context);
  }

  /** An operator with no GPU version: tagging records why, conversion keeps it and fixes its children. */
  private static final class CpuOnlyMeta extends ExecMeta {
    CpuOnlyMeta(SparkPlan plan, RewriteContext context) {
      super(plan, context, null);
    }

    @Override
    protected void tagSelf() {}

    @Override
    protected SparkPlan convertToGpu(List<SparkPlan> gpuChildren) {
      throw new IllegalStateException(plan.nodeName() + " has no GPU version");
    }
  }
}
