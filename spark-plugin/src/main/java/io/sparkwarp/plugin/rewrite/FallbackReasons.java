package io.sparkwarp.plugin.rewrite;

import java.util.List;
import org.apache.spark.sql.catalyst.trees.TreeNodeTag;
import org.apache.spark.sql.execution.SparkPlan;
import scala.Option;

/**
 * Why a Spark operator stayed on the CPU, attached to the operator itself as a tree-node tag so the reasons travel
 * with the plan through AQE re-planning and can be read by tests and tools.
 */
public final class FallbackReasons {
  static final TreeNodeTag<List<String>> TAG = TreeNodeTag.apply("sparkwarp.fallbackReasons");

  private FallbackReasons() {}

  /** The reasons recorded on {@code plan}; empty when it was not looked at or could run on the GPU. */
  public static List<String> of(SparkPlan plan) {
    Option<List<String>> reasons = plan.getTagValue(TAG);
    return reasons.isDefined() ? reasons.get() : List.of();
  }

  static void attach(SparkPlan plan, List<String> reasons) {
    plan.setTagValue(TAG, List.copyOf(reasons));
  }
}
