package io.sparkwarp.examples;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.execution.ReusedSubqueryExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.apache.spark.sql.execution.adaptive.QueryStageExec;
import org.apache.spark.sql.execution.exchange.ReusedExchangeExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Every node of an executed plan, looking through what hides nodes from {@code children()}: adaptive execution's
 * wrapper (its current plan: the final one once the query ran), query stages, reused exchanges and subqueries,
 * and subquery plans inside expressions.
 */
public final class PlanNodes {
  private PlanNodes() {}

  /** All nodes, parents before children. */
  public static List<SparkPlan> all(SparkPlan root) {
    List<SparkPlan> nodes = new ArrayList<>();
    collect(root, nodes);
    return nodes;
  }

  private static void collect(SparkPlan node, List<SparkPlan> nodes) {
    nodes.add(node);
    if (node instanceof AdaptiveSparkPlanExec adaptive) {
      collect(adaptive.executedPlan(), nodes);
    } else if (node instanceof QueryStageExec stage) {
      collect(stage.plan(), nodes);
    } else if (node instanceof ReusedExchangeExec reused) {
      collect(reused.child(), nodes);
    } else if (node instanceof ReusedSubqueryExec reused) {
      collect(reused.child(), nodes);
    }
    CollectionConverters.asJava(node.children()).forEach(child -> collect(child, nodes));
    CollectionConverters.asJava(node.subqueries()).forEach(subquery -> collect(subquery, nodes));
  }

  /** The simple class names of all nodes, in {@link #all} order (GpuFilterExec, FilterExec, ...). */
  public static List<String> names(SparkPlan root) {
    return all(root).stream().map(node -> node.getClass().getSimpleName()).toList();
  }

  /** The nodes that come from the plugin rather than from Spark. */
  public static List<SparkPlan> pluginNodes(SparkPlan root) {
    return all(root).stream().filter(node -> node.getClass().getName().startsWith("io.sparkwarp.")).toList();
  }

  /**
   * Nodes that pass rows or batches on as they are: Spark's transitions and code generation wrappers, unions and
   * coalesced partitions. A download that reaches an upload through nothing else was for nothing.
   */
  private static final Set<String> PASS_THROUGH = Set.of("WholeStageCodegenExec", "InputAdapter",
      "ColumnarToRowExec", "RowToColumnarExec", "UnionExec", "CoalesceExec");

  /**
   * Wasted round trips: each HostToGpuExec that uploads what a GpuToHostExec downloaded in the same stage with no
   * CPU operator in between (only {@link #PASS_THROUGH} nodes), as "upload <- ... <- download".
   */
  public static List<String> roundTrips(SparkPlan root) {
    List<String> found = new ArrayList<>();
    for (SparkPlan node : all(root)) {
      if (node.getClass().getSimpleName().equals("HostToGpuExec")) {
        downloadsBelow(node.children().head(), "HostToGpuExec", found);
      }
    }
    return found;
  }

  private static void downloadsBelow(SparkPlan node, String path, List<String> found) {
    String name = node.getClass().getSimpleName();
    String here = path + " <- " + name;
    if (name.equals("GpuToHostExec")) {
      found.add(here);
    } else if (PASS_THROUGH.contains(name)) {
      CollectionConverters.asJava(node.children()).forEach(child -> downloadsBelow(child, here, found));
    }
  }
}
