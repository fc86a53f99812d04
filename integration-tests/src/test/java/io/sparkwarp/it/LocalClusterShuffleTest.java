package io.sparkwarp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.it.harness.SharedSpark;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The columnar shuffle and broadcast across executor JVMs: {@code local-cluster[2,1,1024]} runs two executors in
 * processes of their own (Spark's standalone cluster in miniature), so map outputs are served by one JVM's block
 * manager and read by another's, a broadcast is fetched by each, and the plugin's classes, serializer and slices
 * must travel as in a real cluster. Answers are
 * compared with the same session's plugin switched off. Its own SparkContext, so it runs in the own-context
 * execution.
 */
@Tag("own-context")
class LocalClusterShuffleTest {
  private static SparkSession spark;
  private static String previousTesting;

  @BeforeAll
  static void start() throws Exception {
    // in testing mode Spark's standalone workers start executors with this JVM's classpath (no Spark install)
    previousTesting = System.setProperty("spark.testing", "true");
    // Spark's launcher wants a build's jars folder under the "Spark home"; an empty one will do
    Path home = Files.createTempDirectory("sparkwarp-spark-home");
    Files.createDirectories(home.resolve("assembly/target/scala-2.13/jars"));
    System.setProperty("spark.test.home", home.toString());
    String opens = System.getProperty("spark.test.jvm.opens", "");
    spark = SharedSpark.ownContext("local-cluster[2,1,1024]", "sparkwarp local-cluster shuffle", "host")
        .config("spark.executor.extraJavaOptions", opens)
        .config("spark.sql.shuffle.partitions", "5").config("spark.sql.autoBroadcastJoinThreshold", "-1")
        .getOrCreate();
    Path dir = Files.createTempDirectory("sparkwarp-local-cluster");
    spark.sql("SELECT id, id % 97 AS k, concat('s', id % 13, '日本') AS s, CAST(id % 1000 AS DECIMAL(12, 2)) AS d, "
        + "CASE WHEN id % 11 = 0 THEN NULL ELSE id * 7 END AS n FROM range(0, 20000, 1, 4)")
        .write().parquet(dir.resolve("facts").toString());
    spark.read().parquet(dir.resolve("facts").toString()).createOrReplaceTempView("facts");
  }

  @AfterAll
  static void stop() {
    if (spark != null) spark.stop();
    System.clearProperty("spark.test.home");
    if (previousTesting == null) System.clearProperty("spark.testing");
    else System.setProperty("spark.testing", previousTesting);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT k, s, count(*), sum(n), max(d) FROM facts WHERE id % 3 <> 0 GROUP BY k, s",
      "SELECT a.id, b.id, a.s FROM facts a JOIN facts b ON a.n = b.id AND a.s = b.s WHERE a.k < 50",
      "SELECT count(*), sum(d) FROM facts WHERE n IS NOT NULL"})
  void gpuShuffleAcrossExecutorsMatchesSpark(String sql) {
    assertMatchesSpark(sql, "GpuShuffleExchangeExec");
  }

  /** The GPU broadcast's slices, collected on the driver, read and uploaded by each executor. */
  @Test
  void gpuBroadcastAcrossExecutorsMatchesSpark() {
    assertMatchesSpark("SELECT /*+ BROADCAST(b) */ a.id, b.s FROM facts a JOIN facts b ON a.n = b.id WHERE b.k < 20",
        "GpuBroadcastExchangeExec");
  }

  private static void assertMatchesSpark(String sql, String gpuNode) {
    List<Row> expected = run(sql, false);
    Dataset<Row> gpu = spark.sql(sql);
    List<Row> actual = sorted(gpu.collectAsList());
    assertTrue(PlanNodes.all(gpu.queryExecution().executedPlan()).stream()
        .anyMatch(n -> n.getClass().getSimpleName().equals(gpuNode)), gpu.queryExecution().executedPlan().treeString());
    assertEquals(expected.size(), actual.size(), sql);
    assertEquals(expected.toString(), actual.toString(), sql);
  }

  private static List<Row> run(String sql, boolean plugin) {
    spark.conf().set("spark.warp.enabled", Boolean.toString(plugin));
    try {
      return sorted(spark.sql(sql).collectAsList());
    } finally {
      spark.conf().set("spark.warp.enabled", "true");
    }
  }

  private static List<Row> sorted(List<Row> rows) {
    return rows.stream().sorted(java.util.Comparator.comparing(Row::toString)).toList();
  }
}
