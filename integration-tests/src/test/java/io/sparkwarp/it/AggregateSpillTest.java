package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.HASH_AGGREGATE;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.QueryCheck;
import io.sparkwarp.plugin.exec.GpuHashAggregateExec;
import io.sparkwarp.plugin.exec.GpuMetrics;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Aggregates whose buffers outgrow {@code spark.warp.aggregate.stateBytes} (set to a few KB here, with small batches
 * so a partition sees many): the partial aggregate hands merged buffers on early and the final aggregate spills them
 * by key to host memory and finishes bucket by bucket (at this budget each of the 31 buckets of a task, about 30 KB,
 * is split again into 37). Answers must equal Spark's for every key kind (strings with
 * multi-byte characters, decimals, doubles with NaN and -0.0, null keys, a hot key), and the final aggregate must
 * have spilled.
 */
class AggregateSpillTest extends GpuTestBase {
  private static final String GROUPS = """
      SELECT id, id %% %1$d AS k, CASE WHEN id %% 13 = 0 THEN NULL ELSE concat('ключ', id %% %1$d) END AS s,
             CAST(id %% %1$d AS DECIMAL(12, 2)) / 4 AS d,
             CASE id %% 5 WHEN 0 THEN double('NaN') WHEN 1 THEN -0.0 WHEN 2 THEN 0.0 ELSE (id %% %1$d) / 3.0 END AS f,
             CASE WHEN id %% 3 = 0 THEN 7 ELSE id %% %1$d END AS hot
      FROM range(0, 120000, 1, 4)""";

  private static QueryCheck spilling(String sql) {
    return query(sql).conf("spark.warp.aggregate.stateBytes", "16k").conf("spark.warp.batch.targetRows", "4096")
        .conf("spark.sql.shuffle.partitions", "3").gpuNodes(HASH_AGGREGATE);
  }

  @ParameterizedTest
  @ValueSource(strings = {"k", "s", "d", "f", "hot", "s, d", "k, f, s"})
  void groupsOfEveryKeyKindMatchSpark(String keys) {
    spilling("SELECT " + keys + ", count(*), sum(id), min(d), max(d), avg(id), count(s) FROM (" + GROUPS.formatted(40_000)
        + ") GROUP BY " + keys).matchesCpu();
  }

  @Test
  void fewGroupsStayOnTheDevice() {
    spilling("SELECT k, count(*), sum(id) FROM (" + GROUPS.formatted(7) + ") GROUP BY k").matchesCpu();
    spilling("SELECT count(*), sum(id), max(k), count(DISTINCT hot) FROM (" + GROUPS.formatted(40_000) + ")").matchesCpu();
  }

  @Test
  void distinctCountsAndFinalResultExpressions() {
    spilling("SELECT s, count(DISTINCT k), sum(id) * 2 AS twice FROM (" + GROUPS.formatted(40_000) + ") GROUP BY s "
        + "HAVING count(*) > 1").matchesCpu();
    spilling("SELECT DISTINCT k, s FROM (" + GROUPS.formatted(40_000) + ")").matchesCpu();
    spilling("SELECT count(DISTINCT k), count(DISTINCT d) FROM (" + GROUPS.formatted(40_000) + ")").matchesCpu();
  }

  @Test
  void theFinalAggregateSpillsToHost() {
    Map<String, String> settings = new HashMap<>(Map.of("spark.warp.aggregate.stateBytes", "16k",
        "spark.warp.batch.targetRows", "4096", "spark.sql.shuffle.partitions", "3", QueryCheck.ENABLED, "true",
        QueryCheck.ADAPTIVE, "false"));
    long spilled = withConf(settings, () -> {
      Dataset<Row> grouped = spark().sql("SELECT k, count(*), sum(id) FROM (" + GROUPS.formatted(40_000)
          + ") GROUP BY k");
      assertTrue(grouped.collectAsList().size() == 40_000);
      long bytes = 0;
      for (SparkPlan node : PlanNodes.all(grouped.queryExecution().executedPlan())) {
        if (node instanceof GpuHashAggregateExec aggregate) bytes += aggregate.metrics().apply(GpuMetrics.SPILL_BYTES).value();
      }
      return bytes;
    });
    assertTrue(spilled > 0, "no aggregate spilled");
  }
}
