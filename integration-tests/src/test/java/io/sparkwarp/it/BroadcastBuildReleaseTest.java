package io.sparkwarp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.it.data.JoinTables;
import io.sparkwarp.it.harness.GpuNodes;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.QueryCheck;
import io.sparkwarp.kernels.memory.DeviceMemory;
import io.sparkwarp.plugin.exec.BroadcastBuilds;
import io.sparkwarp.plugin.exec.GpuBroadcastExchangeExec;
import io.sparkwarp.plugin.exec.GpuBroadcastHashJoinExec;
import io.sparkwarp.plugin.exec.GpuMetrics;
import io.sparkwarp.plugin.runtime.GpuRuntime;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.apache.spark.SparkEnv;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.exchange.BroadcastExchangeLike;
import org.apache.spark.storage.BroadcastBlockId;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A broadcast join's device build lives as long as its broadcast (the GPU exchange's or Spark's): it stays on the
 * executor after the query (a later stage over the same broadcast reuses it), and once the broadcast is destroyed, which removes its blocks as
 * the ContextCleaner does for a broadcast the driver no longer references, the next task on the executor frees its
 * device memory.
 */
class BroadcastBuildReleaseTest extends GpuTestBase {
  private static final long WAIT_MILLIS = 30_000;

  @BeforeAll
  static void registerJoinTables() {
    JoinTables.register(spark());
  }

  /** Either broadcast: the GPU exchange's columnar slices, or Spark's HashedRelation with the GPU exchange off. */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void destroyingTheBroadcastFreesItsDeviceBuild(boolean gpuExchange) {
    // adaptive execution off, so that the executed plan holds the broadcast exchange itself
    Broadcast<?> broadcast = withConf(Map.of(QueryCheck.ENABLED, "true", QueryCheck.ADAPTIVE, "false",
        "spark.warp.exec.BroadcastExchangeExec.enabled", Boolean.toString(gpuExchange)), () -> {
      Dataset<Row> joined = spark().sql("SELECT /*+ BROADCAST(r) */ l.id, r.id FROM join_probe l JOIN join_build r "
          + "ON l.k_int = r.k_int");
      assertFalse(joined.collectAsList().isEmpty());
      SparkPlan plan = joined.queryExecution().executedPlan();
      assertTrue(PlanNodes.names(plan).contains(GpuNodes.BROADCAST_HASH_JOIN), plan.treeString());
      // the build's upload counts towards the bytes the query moved over PCIe
      long uploaded = PlanNodes.all(plan).stream().filter(node -> node instanceof GpuBroadcastHashJoinExec)
          .mapToLong(node -> node.metrics().apply(GpuMetrics.TRANSFER_BYTES).value()).sum();
      assertTrue(uploaded > 0, "no build bytes counted");
      // the exchange hands out the broadcast it made for the query, not a new one
      return PlanNodes.all(plan).stream().filter(node -> node instanceof BroadcastExchangeLike).findFirst()
          .map(exchange -> {
            assertEquals(gpuExchange, exchange instanceof GpuBroadcastExchangeExec, plan.treeString());
            return exchange.executeBroadcast();
          }).orElseThrow();
    });
    long id = broadcast.id();
    long build = BroadcastBuilds.deviceBytes(id);
    assertTrue(build > 0, "the executor keeps the build after the query");
    DeviceMemory memory = GpuRuntime.get().devices().get(0).backend().deviceMemory();
    long shared = memory.bytesInUse(DeviceMemory.NO_TASK);

    spark().range(0, 4, 1, 2).collectAsList();
    assertEquals(build, BroadcastBuilds.deviceBytes(id), "kept while the broadcast lives");

    broadcast.destroy();
    waitFor(() -> SparkEnv.get().blockManager().blockInfoManager().get(new BroadcastBlockId(id, "piece0")).isEmpty(),
        "Spark removes the broadcast's blocks");
    // any task's end frees it: run small jobs until one has
    waitFor(() -> {
      spark().range(0, 4, 1, 2).collectAsList();
      return BroadcastBuilds.deviceBytes(id) == 0;
    }, "the build freed after a task ends");
    assertTrue(memory.bytesInUse(DeviceMemory.NO_TASK) <= shared - build,
        "device memory released: " + memory.bytesInUse(DeviceMemory.NO_TASK) + " bytes shared, " + shared
            + " before, the build " + build);
  }

  private static void waitFor(BooleanSupplier condition, String what) {
    long deadline = System.currentTimeMillis() + WAIT_MILLIS;
    while (!condition.getAsBoolean()) {
      assertTrue(System.currentTimeMillis() < deadline, "timed out waiting: " + what);
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new AssertionError(e);
      }
    }
  }
}
