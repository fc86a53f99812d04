package io.sparkwarp.it.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.PlanNodes;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AdaptiveSparkPlanExec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link PlanNodes} finds nodes that adaptive execution, reuse and subqueries hide from {@code children()}. The
 * plans are Spark's own: the rewrite is off here, so the expected shapes do not depend on the plugin.
 */
class PlanNodesTest {
  /** The executed plan of {@code sql} after running it with adaptive execution on or off. */
  private static SparkPlan planAfterRunning(String sql, boolean adaptive) {
    Map<String, String> cpuOnly = Map.of(QueryCheck.ADAPTIVE, Boolean.toString(adaptive), QueryCheck.ENABLED, "false");
    return QueryCheck.withConf(cpuOnly, () -> {
      Dataset<Row> query = SharedSpark.get().sql(sql);
      query.collectAsList();
      return query.queryExecution().executedPlan();
    });
  }

  private static List<String> namesAfterRunning(String sql, boolean adaptive) {
    return PlanNodes.names(planAfterRunning(sql, adaptive));
  }

  @ParameterizedTest(name = "adaptive {0}")
  @ValueSource(booleans = {true, false})
  void findsFilterAndProjectInsideWholeStageCodegen(boolean adaptive) {
    List<String> names = namesAfterRunning("SELECT id * 2 AS x FROM range(100) WHERE id % 3 = 0", adaptive);
    assertTrue(names.containsAll(List.of("WholeStageCodegenExec", "ProjectExec", "FilterExec", "RangeExec")),
        names.toString());
  }

  @ParameterizedTest(name = "adaptive {0}")
  @ValueSource(booleans = {true, false})
  void findsBothAggregatesAcrossTheShuffle(boolean adaptive) {
    List<String> names = namesAfterRunning("SELECT id % 10 AS k, count(*) FROM range(1000) GROUP BY 1", adaptive);
    assertEquals(2, Collections.frequency(names, "HashAggregateExec"), names.toString());
    assertTrue(names.contains("ShuffleExchangeExec"), names.toString());
    if (adaptive) {
      assertTrue(names.containsAll(List.of("AdaptiveSparkPlanExec", "ShuffleQueryStageExec")), names.toString());
    }
  }

  @ParameterizedTest(name = "adaptive {0}")
  @ValueSource(booleans = {true, false})
  void looksThroughReusedExchanges(boolean adaptive) {
    List<String> names = namesAfterRunning("""
        WITH agg AS (SELECT id % 10 AS k, count(*) AS c FROM range(1000) GROUP BY 1)
        SELECT * FROM agg a JOIN agg b ON a.k = b.k""", adaptive);
    assertTrue(names.contains("ReusedExchangeExec"), names.toString());
    // each side's partial aggregate: one of them is only reachable through the reused exchange
    assertEquals(4, Collections.frequency(names, "HashAggregateExec"), names.toString());
  }

  @ParameterizedTest(name = "adaptive {0}")
  @ValueSource(booleans = {true, false})
  void looksIntoSubqueries(boolean adaptive) {
    List<String> names = namesAfterRunning(
        "SELECT id FROM range(10) WHERE id > (SELECT avg(id) FROM range(100))", adaptive);
    assertTrue(names.contains("SubqueryExec"), names.toString());
    assertTrue(names.contains("HashAggregateExec"), "the aggregate lives only in the subquery: " + names);
  }

  @Test
  void theAdaptiveWrapperHidesItsPlanFromChildren() {
    SparkPlan plan = planAfterRunning("SELECT id % 10 AS k, count(*) FROM range(1000) GROUP BY 1", true);
    assertTrue(plan instanceof AdaptiveSparkPlanExec);
    assertTrue(plan.children().isEmpty(), "so a plain tree walk would see one node");
    assertTrue(PlanNodes.all(plan).size() > 5, PlanNodes.names(plan).toString());
  }
}
