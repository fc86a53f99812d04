package io.sparkwarp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.it.harness.SharedSpark;
import io.sparkwarp.plugin.exec.GpuMetrics;
import io.sparkwarp.plugin.exec.GpuSortExec;
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
 * An ORDER BY whose one partition needs more than the device memory: with {@code spark.warp.memory.deviceLimit} at
 * 6 MB, 150 000 rows of about 25 device bytes (3.6 MB; sorted at once they need that twice and more, and fail with
 * DeviceOutOfMemoryException, as a task reserve that lifts the run budget past the partition shows) are sorted in runs
 * of 1.5 MB (a quarter of the 6 MB task reserve) that spill to host memory and are merged; the answer equals Spark's
 * row for row. Its own SparkContext (the limit is fixed when the executor starts), so it runs in the own-context
 * execution.
 */
@Tag("own-context")
class SortMemoryLimitTest {
  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SharedSpark.ownContext("local[1]", "sparkwarp sort under a device memory limit", "host")
        .config("spark.sql.shuffle.partitions", "1").config("spark.sql.adaptive.enabled", "false")
        .config("spark.warp.memory.deviceLimit", "6m").config("spark.warp.memory.taskReserve", "6m")
        .config("spark.warp.batch.targetRows", "65536").getOrCreate();
    String path = SharedSpark.scratchDir().resolve("tables").resolve("sort_memory_limit").toString();
    spark.conf().set("spark.warp.enabled", "false");
    spark.sql("SELECT id, (id * 7919) % 100003 AS k, concat('v', id % 1000) AS s FROM range(0, 150000, 1, 2)")
        .write().mode("overwrite").parquet(path);
    spark.read().parquet(path).createOrReplaceTempView("sort_memory_limit");
  }

  @AfterAll
  static void stop() {
    if (spark != null) spark.stop();
  }

  @Test
  void aPartitionBeyondTheDeviceMemorySpillsAndMatchesSpark() {
    String sql = "SELECT id, k, s FROM sort_memory_limit ORDER BY k DESC, s, id";
    spark.conf().set("spark.warp.enabled", "false");
    List<Row> expected = spark.sql(sql).collectAsList();
    spark.conf().set("spark.warp.enabled", "true");
    Dataset<Row> gpu = spark.sql(sql);
    List<Row> actual = gpu.collectAsList();
    assertEquals(expected.size(), actual.size());
    for (int i = 0; i < expected.size(); i++) assertEquals(expected.get(i), actual.get(i), "row " + i);
    long spilled = 0;
    long sorts = 0;
    for (SparkPlan node : PlanNodes.all(gpu.queryExecution().executedPlan())) {
      if (node instanceof GpuSortExec sort) {
        sorts++;
        spilled += sort.metrics().apply(GpuMetrics.SPILL_BYTES).value();
      }
    }
    assertTrue(sorts > 0 && spilled > 0, gpu.queryExecution().executedPlan().treeString());
  }
}
