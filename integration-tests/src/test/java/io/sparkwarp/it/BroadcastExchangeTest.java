package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.BROADCAST_EXCHANGE;
import static io.sparkwarp.it.harness.GpuNodes.BROADCAST_HASH_JOIN;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.it.data.JoinTables;
import io.sparkwarp.it.harness.GpuNodes;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.JoinStrategy;
import io.sparkwarp.it.harness.QueryCheck;
import io.sparkwarp.it.harness.SharedSpark;
import io.sparkwarp.plugin.config.WarpConf;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The GPU broadcast exchange: a GPU build side read only by GPU broadcast hash joins is broadcast as columnar
 * slices (no Spark exchange left in the plan), with and without adaptive execution; where anything else reads the
 * broadcast (a CPU join reusing it, dynamic partition pruning) Spark's exchange stays and the answers still match.
 */
class BroadcastExchangeTest extends GpuTestBase {
  private static final String SPARK_EXCHANGE = "BroadcastExchangeExec";

  @BeforeAll
  static void registerJoinTables() {
    JoinTables.register(spark());
  }

  /**
   * Joins that read the GPU broadcast: the left side built (a right outer join on a decimal key), and a string and
   * an int key together over a build larger than the automatic broadcast threshold (broadcast on a hint). The other
   * join types read it in NotInTest and the TPC-H suites.
   */
  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT /*+ BROADCAST(p) */ p.id, b.id FROM join_probe p RIGHT JOIN join_build b ON p.k_dec12 = b.k_dec12",
      "SELECT /*+ BROADCAST(b) */ p.id, b.k_str FROM join_probe p LEFT JOIN join_build b "
          + "ON p.k_str = b.k_str AND p.k_int = b.k_int"})
  void joinsReadTheGpuBroadcast(String sql) {
    onlyGpuExchange(query(sql).conf(JoinStrategy.AUTO_BROADCAST_THRESHOLD, "1")).matchesCpu();
  }

  /** A build larger than spark.sql.maxBroadcastTableSize (as Spark's rows) fails with Spark's own error. */
  @Test
  void buildOverTheMaximumSizeFailsLikeSpark() {
    query("SELECT /*+ BROADCAST(b) */ p.id, b.k_str FROM join_probe p JOIN join_build b ON p.k_int = b.k_int")
        .conf("spark.sql.maxBroadcastTableSize", "1k").adaptive(QueryCheck.Adaptive.OFF)
        .gpuNodes(BROADCAST_EXCHANGE).failsLikeCpu("_LEGACY_ERROR_TEMP_2249");
  }

  /**
   * A shuffled join that adaptive execution turns into a broadcast once the shuffles ran: the exchange it adds over
   * the GPU shuffle's output is the GPU's.
   */
  @Test
  void adaptiveBroadcastOfAShuffledJoin() {
    onlyGpuExchange(query("SELECT p.id, b.k_str FROM join_probe p JOIN join_build b ON p.k_int = b.k_int")
        .conf(JoinStrategy.AUTO_BROADCAST_THRESHOLD, "-1").conf("spark.sql.adaptive.autoBroadcastJoinThreshold", "10m")
        .adaptive(QueryCheck.Adaptive.ON)).matchesCpu();
  }

  /** The same broadcast read by two GPU joins: one exchange, reused. */
  @Test
  void reusedByTwoGpuJoins() {
    onlyGpuExchange(query("WITH b AS (SELECT k_int, k_str FROM join_build WHERE id % 2 = 0) "
        + "SELECT /*+ BROADCAST(b) */ p.id, b.k_str FROM join_probe p JOIN b ON p.k_int = b.k_int WHERE p.id % 3 = 0 "
        + "UNION ALL "
        + "SELECT /*+ BROADCAST(b) */ p.id, b.k_str FROM join_probe p JOIN b ON p.k_int = b.k_int WHERE p.id % 3 = 1"))
        .gpuPlan(plan -> assertTrue(PlanNodes.names(plan).contains("ReusedExchangeExec"), plan.treeString()))
        .matchesCpu();
  }

  /**
   * The same broadcast read by a GPU join and by a join that stays on the CPU (its condition has no GPU version):
   * Spark reuses one exchange for both, so it stays Spark's, and the GPU join reads Spark's HashedRelation. Under
   * adaptive execution, where the readers are judged before the stages are made (without it the rewrite makes the
   * same check itself).
   */
  @Test
  void reusedByACpuJoinStaysSparks() {
    query("WITH b AS (SELECT k_int, k_str FROM join_build WHERE id % 2 = 0) "
        + "SELECT /*+ BROADCAST(b) */ p.id, b.k_str FROM join_probe p JOIN b ON p.k_int = b.k_int WHERE p.id % 3 = 0 "
        + "UNION ALL "
        + "SELECT /*+ BROADCAST(b) */ p.id, b.k_str FROM join_probe p JOIN b ON p.k_int = b.k_int "
        + "AND upper(coalesce(p.k_str, '')) <> coalesce(b.k_str, '') WHERE p.id % 3 = 1")
        .adaptive(QueryCheck.Adaptive.ON).gpuNodes(BROADCAST_HASH_JOIN)
        .fallsBack(SPARK_EXCHANGE, "Spark reuses it for an equal broadcast that stays Spark's exchange");
  }

  /** Switched off, Spark's exchange stays, saying why, and the GPU join reads its HashedRelation. */
  @Test
  void switchedOff() {
    query("SELECT /*+ BROADCAST(b) */ p.id, b.id FROM join_probe p JOIN join_build b ON p.k_str = b.k_str")
        .conf("spark.warp.exec.BroadcastExchangeExec.enabled", "false").adaptive(QueryCheck.Adaptive.OFF)
        .gpuNodes(BROADCAST_HASH_JOIN)
        .fallsBack(SPARK_EXCHANGE, "disabled by spark.warp.exec.BroadcastExchangeExec.enabled=false");
  }

  /**
   * Dynamic partition pruning over a partitioned table: its subquery reads the join's broadcast as Spark's
   * HashedRelation, so that exchange stays Spark's; the rows pruned are the same.
   */
  @Test
  void dynamicPartitionPruningKeepsSparksExchange() {
    Path dir = SharedSpark.scratchDir().resolve("tables").resolve("pq_dpp_fact");
    spark().sql("SELECT id, k_int, id % 7 AS part FROM join_probe").write().mode("overwrite").partitionBy("part")
        .parquet(dir.toString());
    spark().read().parquet(dir.toString()).createOrReplaceTempView("pq_dpp_fact");
    query("SELECT f.id, f.part, b.k_str FROM pq_dpp_fact f JOIN join_build b ON f.part = b.id WHERE b.k_int > 3")
        .conf(JoinStrategy.AUTO_BROADCAST_THRESHOLD, "10m").cpuNodes("SubqueryBroadcastExec")
        .gpuNodes(BROADCAST_HASH_JOIN).fallsBack(SPARK_EXCHANGE, "dynamic partition pruning reads the same broadcast");
  }

  /**
   * A GPU join whose GPU version fails to build (an injected internal error) stays Spark's join, which cannot read a
   * GPU broadcast: it gets Spark's exchange over the GPU build side back, also under adaptive execution, where the
   * GPU broadcast was judged and made a query stage before the join's conversion failed.
   */
  @Test
  void aJoinThatFailsToConvertReadsSparksExchange() {
    query("SELECT /*+ BROADCAST(b) */ p.id, b.k_str FROM join_probe p JOIN "
        + "(SELECT k_int, k_str FROM join_build WHERE id % 2 = 0) b ON p.k_int = b.k_int")
        .conf(WarpConf.TEST_FAIL_CONVERSION.key(), "BroadcastHashJoinExec").gpuNodes(GpuNodes.FILTER)
        .fallsBack("BroadcastHashJoinExec", "internal error: injected failure while building the GPU version");
  }

  /** The GPU exchange in the GPU run's plan and no exchange of Spark's. */
  private static QueryCheck onlyGpuExchange(QueryCheck check) {
    return check.gpuNodes(BROADCAST_HASH_JOIN, BROADCAST_EXCHANGE).gpuPlan(plan -> {
      List<String> names = PlanNodes.names(plan);
      assertFalse(names.contains(SPARK_EXCHANGE), "Spark's broadcast exchange left: " + plan.treeString());
    });
  }
}
