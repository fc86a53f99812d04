package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.HASH_AGGREGATE;
import static io.sparkwarp.it.harness.GpuNodes.SHUFFLE_EXCHANGE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.QueryCheck;
import io.sparkwarp.plugin.config.WarpConf;
import io.sparkwarp.plugin.exec.GpuMetrics;
import io.sparkwarp.plugin.exec.GpuShuffleExchangeExec;
import io.sparkwarp.plugin.shuffle.DeviceShuffleStore;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.storage.BlockManager;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * In local mode a GPU shuffle's map output stays in device memory ({@link DeviceShuffleStore}) and the stages that
 * read it take it there; map tasks over the store's budget go through Spark's shuffle, and the reads take each map
 * task's output from where it went; output evicted before a later read is recomputed by Spark's scheduler.
 */
class DeviceShuffleStoreTest extends GpuTestBase {
  /** Two GPU exchanges: the repartition's (rows of every column) and the aggregation's. */
  private static final String SQL = "SELECT str_a, count(*), max(id) FROM (SELECT /*+ REPARTITION(6, id) */ id, "
      + "str_a FROM all_types WHERE id % 3 <> 0) GROUP BY str_a";

  @BeforeEach
  void emptyStore() {
    DeviceShuffleStore.get().clear();
  }

  /** What the query's GPU exchanges kept on the device, and moved over PCIe, in one run with {@code settings}. */
  private record Run(List<Row> rows, long keptBytes, long pcieBytes, int exchanges) {}

  private static Run run(Map<String, String> settings) {
    Map<String, String> all = new HashMap<>(Map.of(QueryCheck.ENABLED, "true", QueryCheck.ADAPTIVE, "false"));
    all.putAll(settings);
    return withConf(all, () -> {
      Dataset<Row> query = spark().sql(SQL);
      List<Row> rows = query.collectAsList();
      SparkPlan plan = query.queryExecution().executedPlan();
      long kept = 0;
      long pcie = 0;
      int exchanges = 0;
      for (SparkPlan node : PlanNodes.all(plan)) {
        if (node instanceof GpuShuffleExchangeExec exchange) {
          kept += DeviceShuffleStore.get().deviceBytes(exchange.shuffleId());
          pcie += exchange.metrics().apply(GpuMetrics.TRANSFER_BYTES).value();
          exchanges++;
        }
      }
      return new Run(rows, kept, pcie, exchanges);
    });
  }

  @Test
  void outputStaysOnTheDevice() {
    query(SQL).gpuNodes(SHUFFLE_EXCHANGE, HASH_AGGREGATE).matchesCpu();
    Run run = run(Map.of());
    assertEquals(2, run.exchanges());
    assertTrue(run.keptBytes() > 0, "nothing kept on the device");
    assertEquals(0, run.pcieBytes(), "a shuffle whose output stays on the device moves nothing over PCIe");
  }

  @Test
  void outputOverTheBudgetGoesThroughSparksShuffle() {
    String budget = WarpConf.SHUFFLE_DEVICE_STORE_BYTES.key();
    query(SQL).conf(budget, "1").gpuNodes(SHUFFLE_EXCHANGE).matchesCpu();
    Run run = run(Map.of(budget, "1"));
    assertEquals(0, run.keptBytes());
    assertTrue(run.pcieBytes() > 0, "the map side downloads what goes through Spark's shuffle");
  }

  @Test
  void readsTakeEachMapOutputFromWhereItWent() {
    Run whole = run(Map.of());
    DeviceShuffleStore.get().clear();
    // room for about half of the map tasks' output: the others go through Spark's shuffle
    Run mixed = run(Map.of(WarpConf.SHUFFLE_DEVICE_STORE_BYTES.key(), Long.toString(whole.keptBytes() / 2)));
    assertTrue(mixed.keptBytes() > 0 && mixed.keptBytes() < whole.keptBytes(), mixed + " against " + whole);
    assertTrue(mixed.pcieBytes() > 0, mixed.toString());
    assertEquals(sorted(whole.rows()), sorted(mixed.rows()));
    query(SQL).conf(WarpConf.SHUFFLE_DEVICE_STORE_BYTES.key(), Long.toString(whole.keptBytes() / 2))
        .gpuNodes(SHUFFLE_EXCHANGE).matchesCpu();
  }

  @Test
  void evictedOutputIsRecomputed() {
    withConf(Map.of(QueryCheck.ENABLED, "true", QueryCheck.ADAPTIVE, "false"), () -> {
      Dataset<Row> query = spark().sql(SQL);
      List<Row> first = query.collectAsList();
      DeviceShuffleStore.get().clear();  // as if evicted: the map stages' output is registered but gone
      List<Row> again = query.collectAsList();
      assertEquals(sorted(first), sorted(again));
      assertTrue(DeviceShuffleStore.get().deviceBytes() > 0, "the lost map output was written again");
      // the loss named the store's own location: the executor's block manager (results, broadcasts) stays
      BlockManager blocks = SparkEnv.get().blockManager();
      assertTrue(blocks.master().getMemoryStatus().contains(blocks.blockManagerId()), "block manager dropped");
      return null;
    });
  }

  private static List<String> sorted(List<Row> rows) {
    return rows.stream().map(Row::toString).sorted().toList();
  }
}
