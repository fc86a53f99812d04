package io.sparkwarp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.it.harness.SharedSpark;
import io.sparkwarp.plugin.exec.GpuHashAggregateExec;
import io.sparkwarp.plugin.exec.GpuMetrics;
import java.util.Comparator;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A grouped aggregate whose groups need more than the device memory: with {@code spark.warp.memory.deviceLimit} at
 * 32 MB and 1.2 M distinct keys (about 20 MB of buffers per partition's final aggregate, three times that while they
 * are merged), the query completes as Spark does, the final aggregate spilling its buffers to host memory by key. Its own SparkContext (the limit is
 * fixed when the executor starts), so it runs in the own-context execution.
 */
@Tag("own-context")
class AggregateMemoryLimitTest {
  private static final String QUERY = """
      SELECT k, count(*), sum(v), max(v) FROM (
        SELECT id %% 1200000 AS k, CASE WHEN id %% 17 = 0 THEN NULL ELSE id * 3 END AS v FROM range(0, 2400000, 1, 2))
      GROUP BY k""";

  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SharedSpark.ownContext("local[1]", "sparkwarp aggregate under a device memory limit", "host")
        .config("spark.sql.shuffle.partitions", "2").config("spark.sql.adaptive.enabled", "false")
        .config("spark.warp.memory.deviceLimit", "32m").config("spark.warp.memory.taskReserve", "16m")
        .config("spark.warp.batch.targetRows", "65536").getOrCreate();
  }

  @AfterAll
  static void stop() {
    if (spark != null) spark.stop();
  }

  @Test
  void groupsBeyondTheDeviceMemorySpillAndMatchSpark() {
    String sql = QUERY.formatted();
    spark.conf().set("spark.warp.enabled", "false");
    List<Row> expected = summary(spark.sql(sql));
    spark.conf().set("spark.warp.enabled", "true");
    Dataset<Row> gpu = spark.sql(sql);
    List<Row> actual = summary(gpu);
    assertEquals(expected.toString(), actual.toString());
    long spilled = 0;
    for (SparkPlan node : PlanNodes.all(gpu.queryExecution().executedPlan())) {
      if (node instanceof GpuHashAggregateExec aggregate) spilled += aggregate.metrics().apply(GpuMetrics.SPILL_BYTES)
          .value();
    }
    assertTrue(spilled > 0, gpu.queryExecution().executedPlan().treeString());
  }

  /** The answer's rows, sorted by their text: compared row by row. */
  private static List<Row> summary(Dataset<Row> result) {
    return result.collectAsList().stream().sorted(Comparator.comparing(Row::toString)).toList();
  }
}
