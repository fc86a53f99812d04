package io.sparkwarp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.it.harness.SharedSpark;
import io.sparkwarp.plugin.exec.GpuMetrics;
import io.sparkwarp.plugin.exec.GpuShuffleExchangeExec;
import io.sparkwarp.plugin.exec.GpuShuffledHashJoinExec;
import io.sparkwarp.plugin.runtime.GpuDevice;
import io.sparkwarp.plugin.runtime.GpuRuntime;
import io.sparkwarp.plugin.shuffle.DeviceShuffleStore;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * An executor with two devices ({@code spark.warp.devices=2}, simulated by the host backend): tasks are spread over
 * both, each device admits tasks by its own memory, shuffle output stays on the device that wrote it and is read
 * from the other, a broadcast's build is made once per device that probes it, and a shuffled hash join's
 * partitions are spread over both devices (spark.warp.join.spreadBytes=0) for every join type, with null keys and a
 * residual condition. Answers equal Spark's. Its own SparkContext (the device count is
 * fixed when the executor starts).
 */
@Tag("own-context")
class MultiDeviceTest {
  private static SparkSession spark;

  @BeforeAll
  static void start() {
    spark = SharedSpark.ownContext("local[4]", "sparkwarp on two devices", "host")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.warp.devices", "2").getOrCreate();
    spark.sql("SELECT id, id % 1000 AS k, concat('s', id % 37, 'é') AS s, CAST(id % 997 AS DECIMAL(10, 2)) AS d "
        + "FROM range(0, 200000, 1, 8)").createOrReplaceTempView("facts");
    spark.sql("SELECT id AS k, concat('name', id) AS name FROM range(0, 1000, 1, 2)").createOrReplaceTempView("dims");
    spark.sql("SELECT id, IF(id % 13 = 0, NULL, id % 300) AS k, concat('s', id % 37, 'é') AS s "
        + "FROM range(0, 6000, 1, 4)").createOrReplaceTempView("small_facts");
    spark.sql("SELECT IF(id % 17 = 0, NULL, id) AS k, concat('n', id, 'ü日') AS name FROM range(100, 400, 1, 2)")
        .createOrReplaceTempView("small_dims");
  }

  @AfterAll
  static void stop() {
    if (spark != null) spark.stop();
  }

  @Test
  void theExecutorOpensTwoDevices() {
    assertEquals(2, GpuRuntime.get().devices().size());
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT k, count(*), sum(d), max(id) FROM facts WHERE s <> 's3é' GROUP BY k",
      "SELECT /*+ BROADCAST(dims) */ f.id, dims.name FROM facts f JOIN dims ON f.k = dims.k WHERE f.id % 7 = 0",
      "SELECT /*+ SHUFFLE_HASH(dims) */ dims.name, count(*) FROM facts f JOIN dims ON f.k = dims.k GROUP BY dims.name"})
  void tasksOnBothDevicesMatchSpark(String sql) {
    spark.conf().set("spark.warp.enabled", "false");
    List<String> expected = sorted(spark.sql(sql));
    spark.conf().set("spark.warp.enabled", "true");
    Dataset<Row> gpu = spark.sql(sql);
    assertEquals(expected, sorted(gpu));
    assertTrue(PlanNodes.names(gpu.queryExecution().executedPlan()).stream().anyMatch(n -> n.startsWith("Gpu")),
        gpu.queryExecution().executedPlan().treeString());
    // each query has 8 tasks on 4 cores: some run on each device (peaks only grow, so the first query proves it)
    for (GpuDevice device : GpuRuntime.get().devices()) {
      assertTrue(device.backend().deviceMemory().peakBytes() > 0, "device " + device.index() + " ran no task");
    }
  }

  /**
   * The map tasks of both devices keep their output on their device, and the reduce tasks read it from either one
   * (the host backend's devices read each other's memory, as GPUs with peer access do): nothing crosses PCIe.
   */
  @Test
  void shuffleOutputStaysOnBothDevicesAndIsReadAcross() {
    String sql = "SELECT k, count(*), max(id) FROM (SELECT /*+ REPARTITION(8, id) */ id, id % 1000 AS k "
        + "FROM range(0, 200000, 1, 8) WHERE id % 3 <> 0) GROUP BY k";
    try {
      spark.conf().set("spark.sql.adaptive.enabled", "false");
      spark.conf().set("spark.warp.enabled", "false");
      List<String> expected = sorted(spark.sql(sql));
      spark.conf().set("spark.warp.enabled", "true");
      Dataset<Row> gpu = spark.sql(sql);
      assertEquals(expected, sorted(gpu));
      assertTrue(GpuRuntime.get().devicesReadEachOther());
      int exchanges = 0;
      for (SparkPlan node : PlanNodes.all(gpu.queryExecution().executedPlan())) {
        if (node instanceof GpuShuffleExchangeExec exchange) {
          exchanges++;
          assertEquals(2, DeviceShuffleStore.get().devices(exchange.shuffleId()).size(),
              "output of shuffle " + exchange.shuffleId() + " kept on both devices");
          assertEquals(0, exchange.metrics().apply(GpuMetrics.TRANSFER_BYTES).value(), "bytes over PCIe");
        }
      }
      assertEquals(2, exchanges, gpu.queryExecution().executedPlan().treeString());
    } finally {
      spark.conf().unset("spark.sql.adaptive.enabled");
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"INNER", "LEFT OUTER", "RIGHT OUTER", "FULL OUTER", "LEFT SEMI", "LEFT ANTI"})
  void shuffledHashJoinsSpreadOverBothDevicesMatchSpark(String type) {
    boolean leftOnly = type.equals("LEFT SEMI") || type.equals("LEFT ANTI");
    String columns = leftOnly ? "f.id, f.k, f.s" : "f.id, f.s, d.k, d.name";
    String sql = "SELECT /*+ SHUFFLE_HASH(d) */ " + columns + " FROM small_facts f " + type + " JOIN small_dims d "
        + "ON f.k = d.k AND f.id % 5 < d.k % 4";
    try {
      spark.conf().set("spark.sql.adaptive.enabled", "false");
      spark.conf().set("spark.sql.autoBroadcastJoinThreshold", "-1");
      spark.conf().set("spark.warp.join.algorithm", "hash");
      spark.conf().set("spark.warp.join.spreadBytes", "0");
      spark.conf().set("spark.warp.enabled", "false");
      List<String> expected = sorted(spark.sql(sql));
      spark.conf().set("spark.warp.enabled", "true");
      Dataset<Row> gpu = spark.sql(sql);
      assertEquals(expected, sorted(gpu), type);
      long spread = 0;
      for (SparkPlan node : PlanNodes.all(gpu.queryExecution().executedPlan())) {
        if (node instanceof GpuShuffledHashJoinExec join) {
          spread += join.metrics().apply(GpuMetrics.SPREAD_PARTITIONS).value();
        }
      }
      assertTrue(spread > 0, "no partition spread over the devices:\n" + gpu.queryExecution().executedPlan()
          .treeString());
    } finally {
      for (String key : List.of("spark.sql.adaptive.enabled", "spark.sql.autoBroadcastJoinThreshold",
          "spark.warp.join.algorithm", "spark.warp.join.spreadBytes")) {
        spark.conf().unset(key);
      }
    }
  }

  private static List<String> sorted(Dataset<Row> rows) {
    return rows.collectAsList().stream().map(Row::toString).sorted(Comparator.naturalOrder()).toList();
  }
}
