package io.sparkwarp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.it.data.TestTables;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.plugin.exec.GpuMetrics;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.junit.jupiter.api.Test;

/**
 * Operators whose device allocations fail as if the device were full ({@code spark.warp.test.failDeviceAllocations},
 * above a size, every time) split their batches in halves until the pieces fit, and answer as Spark does, rows in
 * Spark's order where the operator keeps it; a single row that cannot fit fails with an error naming the operator.
 */
class DeviceMemoryRetryTest extends GpuTestBase {
  private static final String FAULTS = "spark.warp.test.failDeviceAllocations";

  /**
   * The upload, the filter and the projection each split what reaches them, down to pieces of a few dozen rows of
   * every device type (strings, decimals, dates, nulls, NaN), cut on the host and on the device.
   */
  @Test
  void uploadFilterAndProjectionSplitBatchesInRowOrder() {
    String sql = "SELECT *, id * 3 AS w FROM " + TestTables.ALL_TYPES_ROWS + " WHERE id % 3 <> 1";
    List<Row> expected = withConf(Map.of("spark.warp.enabled", "false"), () -> spark().sql(sql).collectAsList());
    withConf(Map.of(FAULTS, "HostToGpuExec:4k,GpuFilterExec:2k,GpuProjectExec:1k"), () -> {
      Dataset<Row> gpu = spark().sql(sql);
      assertEquals(expected, gpu.collectAsList(), "rows in Spark's order");
      assertSplit(gpu, "HostToGpuExec", "GpuFilterExec", "GpuProjectExec");
      return null;
    });
  }

  /**
   * The join splits its stream batches (never the build) to 2,500 rows; the aggregates' first two allocations in each
   * partition fail (the host backend's aggregation allocates only per group, so a size would not reach it), which
   * splits the batch they were for.
   */
  @Test
  void joinStreamSideAndAggregateInputSplit() {
    String sql = "SELECT /*+ BROADCAST(d) */ d.g, count(*), sum(f.v), max(f.v) FROM"
        + " (SELECT id % 1000 AS k, CASE WHEN id % 9 = 0 THEN NULL ELSE id END AS v FROM range(0, 20000, 1, 2)) f"
        + " JOIN (SELECT id AS dk, id % 10 AS g FROM range(0, 1000)) d ON f.k = d.dk GROUP BY d.g";
    List<String> expected = withConf(Map.of("spark.warp.enabled", "false"), () -> sorted(spark().sql(sql)));
    withConf(Map.of(FAULTS, "GpuBroadcastHashJoinExec:32k,GpuHashAggregateExec:0:2"), () -> {
      Dataset<Row> gpu = spark().sql(sql);
      assertEquals(expected, sorted(gpu));
      assertSplit(gpu, "GpuBroadcastHashJoinExec", "GpuHashAggregateExec");
      return null;
    });
  }

  /** The exchange groups a map task's batch by partition in pieces; every row still goes to Spark's partition. */
  @Test
  void shuffleGroupsBatchesInPieces() {
    String sql = "SELECT spark_partition_id() AS p, id, v FROM"
        + " (SELECT /*+ REPARTITION(3, id) */ id, id * 3 AS v FROM range(0, 20000, 1, 2))";
    List<String> expected = withConf(Map.of("spark.warp.enabled", "false"), () -> sorted(spark().sql(sql)));
    withConf(Map.of(FAULTS, "GpuShuffleExchangeExec:16k"), () -> {
      Dataset<Row> gpu = spark().sql(sql);
      assertEquals(expected, sorted(gpu));
      assertSplit(gpu, "GpuShuffleExchangeExec");
      return null;
    });
  }

  @Test
  void aRowThatCannotFitFailsNamingTheOperatorAndTheBytes() {
    Exception e = withConf(Map.of(FAULTS, "GpuProjectExec:0"), () -> assertThrows(Exception.class,
        () -> spark().sql("SELECT id * 3 AS w FROM range(0, 100, 1, 1)").collectAsList()));
    String messages = "";
    for (Throwable t = e; t != null; t = t.getCause()) messages += t.getMessage() + "\n";
    assertTrue(messages.contains("GpuProjectExec cannot fit one row in device memory, even after waiting for other "
        + "tasks and splitting its batch of 100 rows"), messages);
    assertTrue(messages.matches("(?s).*: asked for [0-9]+ bytes.*"), messages);
  }

  /** Every named operator of the executed plan split at least one batch. */
  private static void assertSplit(Dataset<Row> result, String... operators) {
    SparkPlan plan = result.queryExecution().executedPlan();
    for (String operator : operators) {
      List<SparkPlan> nodes = PlanNodes.all(plan).stream()
          .filter(n -> n.getClass().getSimpleName().equals(operator)).toList();
      assertTrue(!nodes.isEmpty(), operator + " in " + plan.treeString());
      long splits = nodes.stream().mapToLong(n -> n.metrics().apply(GpuMetrics.SPLIT_BATCHES).value()).sum();
      assertTrue(splits > 0, operator + " split no batch: " + plan.treeString());
    }
  }

  private static List<String> sorted(Dataset<Row> result) {
    return result.collectAsList().stream().map(Row::toString).sorted(Comparator.naturalOrder()).toList();
  }
}
