package io.sparkwarp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.it.data.TestTables;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceMemory;
import io.sparkwarp.plugin.config.FaultInjection;
import io.sparkwarp.plugin.exec.GpuMetrics;
import io.sparkwarp.plugin.runtime.GpuDevice;
import io.sparkwarp.plugin.runtime.GpuRuntime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.junit.jupiter.api.Test;

/**
 * Operators whose device allocations fail as if the device were full ({@code spark.warp.test.failDeviceAllocations},
 * above a size, every time) split their batches in halves until the pieces fit, and answer as Spark does, rows in
 * Spark's order where the operator keeps it; a single row that cannot fit fails with an error naming the operator.
 * A broadcast join's build, which cannot be split, is made again, or fails with an error naming the broadcast.
 */
class DeviceMemoryRetryTest extends GpuTestBase {
  private static final String FAULTS = "spark.warp.test.failDeviceAllocations";
  /** A join of 20,000 rows against a broadcast of 1,000: two long columns of 8,000 bytes, a hash table of 16k. */
  private static final String BROADCAST_JOIN = "SELECT /*+ BROADCAST(d) */ f.v, d.g FROM"
      + " (SELECT id % 1000 AS k, id AS v FROM range(0, 20000, 1, 2)) f"
      + " JOIN (SELECT id AS dk, id % 10 AS g FROM range(0, 1000)) d ON f.k = d.dk";

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

  /**
   * A broadcast join's build cannot be split: when making it runs out of device memory (its first two allocations
   * fail), it is made again after the device's idle builds were freed or another task freed memory, and the join
   * answers as Spark does.
   */
  @Test
  void aBroadcastBuildThatRunsOutOfMemoryIsMadeAgain() {
    List<String> expected = withConf(Map.of("spark.warp.enabled", "false"), () -> sorted(spark().sql(BROADCAST_JOIN)));
    try (OtherTask other = new OtherTask()) {
      withConf(Map.of(FAULTS, FaultInjection.BROADCAST_BUILD + ":0:2"), () -> {
        Dataset<Row> gpu = spark().sql(BROADCAST_JOIN);
        assertEquals(expected, sorted(gpu));
        List<SparkPlan> joins = nodes(gpu, "GpuBroadcastHashJoinExec");
        assertTrue(joins.stream().mapToLong(n -> n.metrics().apply(GpuMetrics.RETRIES).value()).sum() > 0,
            "the build's retries count as the join's");
        return null;
      });
    }
  }

  /**
   * A build that never fits (its hash table asks for more than 10k: the upload before it succeeds) fails at once when
   * no other task holds memory to wait for, naming the join, the broadcast and the bytes, and leaves nothing on the
   * device.
   */
  @Test
  void aBroadcastBuildThatNeverFitsFailsNamingTheJoinTheBroadcastAndTheBytes() throws InterruptedException {
    DeviceMemory memory = GpuRuntime.get().devices().get(0).backend().deviceMemory();
    long shared = memory.bytesInUse(DeviceMemory.NO_TASK);
    long start = System.nanoTime();
    Exception e = withConf(Map.of(FAULTS, FaultInjection.BROADCAST_BUILD + ":10k"), () -> assertThrows(Exception.class,
        () -> spark().sql(BROADCAST_JOIN).collectAsList()));
    assertTrue(System.nanoTime() - start < 20_000_000_000L, "no wait for memory no task could free");
    String messages = "";
    for (Throwable t = e; t != null; t = t.getCause()) messages += t.getMessage() + "\n";
    assertTrue(messages.matches("(?s).*GpuBroadcastHashJoinExec ran out of device memory making the build of broadcast "
        + "[0-9]+ after freeing the idle builds, and waiting for other tasks to free some did not help: .*asked for "
        + "[0-9]+ bytes.*"), messages);
    // the job fails with its first task; the stage's other task may still be making (and failing) its own build
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (memory.bytesInUse(DeviceMemory.NO_TASK) > shared && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertTrue(memory.bytesInUse(DeviceMemory.NO_TASK) <= shared, "the failed builds' uploads were freed");
  }

  /** Every named operator of the executed plan split at least one batch. */
  private static void assertSplit(Dataset<Row> result, String... operators) {
    for (String operator : operators) {
      long splits = nodes(result, operator).stream().mapToLong(n -> n.metrics().apply(GpuMetrics.SPLIT_BATCHES)
          .value()).sum();
      assertTrue(splits > 0, operator + " split no batch: " + result.queryExecution().executedPlan().treeString());
    }
  }

  /** The executed plan's nodes of {@code operator}, at least one. */
  private static List<SparkPlan> nodes(Dataset<Row> result, String operator) {
    SparkPlan plan = result.queryExecution().executedPlan();
    List<SparkPlan> nodes = PlanNodes.all(plan).stream().filter(n -> n.getClass().getSimpleName().equals(operator))
        .toList();
    assertTrue(!nodes.isEmpty(), operator + " in " + plan.treeString());
    return nodes;
  }

  /**
   * Another task on every device as the waits for memory see it: it holds a little device memory all along, and
   * frees and takes some more every few milliseconds (momentary pressure, which waiting gets through).
   */
  private static final class OtherTask implements AutoCloseable {
    private static final long TASK_ID = 1L << 40;
    private final CountDownLatch holding = new CountDownLatch(1);
    private final Thread thread = new Thread(this::run, "other task");
    private volatile boolean stop;

    OtherTask() {
      thread.setDaemon(true);
      thread.start();
      try {
        assertTrue(holding.await(10, TimeUnit.SECONDS));
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }

    private void run() {
      List<Backend> backends = GpuRuntime.get().devices().stream().map(GpuDevice::backend).toList();
      List<AutoCloseable> held = new ArrayList<>();
      try (DeviceMemory.TaskScope task = backends.get(0).deviceMemory().enterTask(TASK_ID)) {
        List<DeviceStream> streams = new ArrayList<>();
        for (Backend backend : backends) {
          DeviceStream stream = backend.newStream();
          held.add(stream);
          streams.add(stream);
          held.add(backend.allocate(64, stream));
        }
        holding.countDown();
        while (!stop) {
          for (int i = 0; i < backends.size(); i++) backends.get(i).allocate(64, streams.get(i)).close();
          Thread.sleep(5);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        Collections.reverse(held);
        Closeables.closeAll(held);
        backends.forEach(b -> b.deviceMemory().finishTask(TASK_ID));
      }
    }

    @Override
    public void close() {
      stop = true;
      try {
        thread.join(10_000);
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }
  }

  private static List<String> sorted(Dataset<Row> result) {
    return result.collectAsList().stream().map(Row::toString).sorted(Comparator.naturalOrder()).toList();
  }
}
