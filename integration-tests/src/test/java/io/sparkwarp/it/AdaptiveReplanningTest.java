package io.sparkwarp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.QueryCheck;
import io.sparkwarp.examples.tpch.TpchQueries;
import io.sparkwarp.it.data.TpchViews;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Adaptive execution re-plans the rest of a query after each stage, and rejects a new plan it finds invalid. GPU
 * operators must leave it the plans Spark would: a GPU filter that reported its output as nullable where Spark's
 * FilterExec proves it non-null made every re-plan over a finished broadcast invalid (the broadcast's key mode
 * differed, so Spark would have broadcast it again), so no join was converted and no partition coalesced: TPC-H Q10
 * ran its join stage as 200 tasks of tiny shuffle output.
 */
class AdaptiveReplanningTest extends GpuTestBase {
  /**
   * TPC-H Q10 at the tests' scale factor with the broadcast thresholds scaled down alike (1/50 of Spark's default
   * 10 MB: Q10 at SF 0.5 with the default showed the bug): customer and nation are broadcast from the start through
   * GPU filters on isnotnull keys, and the orders side of the orders-lineitem join is known small only at run time.
   */
  private static final String SQL = TpchQueries.Q10.sql();

  @BeforeAll
  static void tables() {
    TpchViews.register(spark());
  }

  @Test
  void joinsConvertAsWithoutThePlugin() {
    Map<String, String> settings = Map.of(QueryCheck.ADAPTIVE, "true",
        "spark.sql.autoBroadcastJoinThreshold", "200000", "spark.sql.adaptive.autoBroadcastJoinThreshold", "200000");
    long cpu = withConf(with(settings, QueryCheck.ENABLED, "false"), () -> broadcastJoins(false));
    long gpu = withConf(with(settings, QueryCheck.ENABLED, "true"), () -> broadcastJoins(true));
    assertTrue(cpu >= 3, "Spark alone should broadcast customer, nation and, once it ran, orders: " + cpu);
    assertEquals(cpu, gpu, "broadcast joins with the plugin, against Spark alone:\n" + lastPlan);
  }

  private static Map<String, String> with(Map<String, String> settings, String key, String value) {
    java.util.HashMap<String, String> all = new java.util.HashMap<>(settings);
    all.put(key, value);
    return all;
  }

  private static String lastPlan;

  private static long broadcastJoins(boolean gpu) {
    Dataset<Row> query = spark().sql(SQL);
    query.collectAsList();
    lastPlan = query.queryExecution().executedPlan().treeString();
    List<SparkPlan> nodes = PlanNodes.all(query.queryExecution().executedPlan());
    return nodes.stream().filter(n -> n.getClass().getSimpleName().equals(gpu ? "GpuBroadcastHashJoinExec"
        : "BroadcastHashJoinExec")).count();
  }
}
