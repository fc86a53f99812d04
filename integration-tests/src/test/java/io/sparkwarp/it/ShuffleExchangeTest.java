package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.HASH_AGGREGATE;
import static io.sparkwarp.it.harness.GpuNodes.SHUFFLED_HASH_JOIN;
import static io.sparkwarp.it.harness.GpuNodes.SHUFFLE_EXCHANGE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.it.data.TypeCase;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.QueryCheck;
import io.sparkwarp.it.harness.QueryCheck.Adaptive;
import io.sparkwarp.plugin.exec.GpuShuffleExchangeExec;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.ShuffleDependency;
import org.apache.spark.rdd.DeterministicLevel$;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.plans.physical.RoundRobinPartitioning;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.functions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The columnar shuffle of GPU stages: rows must land in exactly the partitions Spark's own exchange gives them (a
 * GPU-shuffled side meets CPU-shuffled sides in joins), for keys of every type, nulls, NaN, -0.0, multi-byte
 * strings, and round-robin from Spark's start positions, with and without adaptive execution (coalesced reads, local
 * reads, stage reuse).
 */
class ShuffleExchangeTest extends GpuTestBase {
  private static final String NO_BROADCAST = "spark.sql.autoBroadcastJoinThreshold";
  private static final String SORT_BEFORE_REPARTITION = "spark.sql.execution.sortBeforeRepartition";

  /** spark_partition_id() above the exchange (on the CPU) reads where each row landed: it must be Spark's place. */
  @ParameterizedTest
  @EnumSource(TypeCase.class)
  void rowsLandInSparksPartitions(TypeCase type) {
    query("SELECT id, " + type.a() + ", spark_partition_id() AS p FROM (SELECT /*+ REPARTITION(7, " + type.a()
        + ") */ id, " + type.a() + " FROM all_types WHERE id % 5 <> 0)")
        .gpuNodes(SHUFFLE_EXCHANGE, FILTER).matchesCpu();
  }

  @Test
  void severalKeysOfMixedTypes() {
    query("SELECT id, spark_partition_id() AS p FROM (SELECT /*+ REPARTITION(13, str_a, dec_a, double_b, date_a, "
        + "bool_a) */ id, str_a, dec_a, double_b, date_a, bool_a FROM all_types WHERE id > 3)")
        .gpuNodes(SHUFFLE_EXCHANGE).matchesCpu();
  }

  @Test
  void groupedAggregateShufflesOnTheGpu() {
    query("SELECT str_a, skew, count(*), sum(int_b), min(dec_a), max(int_b) FROM all_types "
        + "WHERE int_a IS NOT NULL GROUP BY str_a, skew")
        .gpuNodes(SHUFFLE_EXCHANGE, HASH_AGGREGATE).matchesCpu();
  }

  @Test
  void globalAggregateGoesThroughOnePartition() {
    query("SELECT count(*), sum(int_a), max(dec_a) FROM all_types WHERE long_a > 0")
        .gpuNodes(SHUFFLE_EXCHANGE, HASH_AGGREGATE).matchesCpu();
  }

  /**
   * Without adaptive execution the empty shuffle runs; with it, the exchange's statistics (no rows) let Spark
   * replace the rest of the plan by an empty relation, as it does after its own exchange.
   */
  @Test
  void emptyInput() {
    String sql = "SELECT str_a, count(*) FROM all_types WHERE id < 0 GROUP BY str_a";
    query(sql).adaptive(Adaptive.OFF).gpuNodes(SHUFFLE_EXCHANGE).matchesCpu();
    query(sql).adaptive(Adaptive.ON).gpuNodes("EmptyRelationExec").matchesCpu();
  }

  @Test
  void shuffledJoinOfTwoGpuStages() {
    query("SELECT a.id, b.id, a.str_a FROM all_types a JOIN all_types b ON a.str_a = b.str_b AND a.int_a = b.int_b")
        .conf(NO_BROADCAST, "-1").gpuNodes(SHUFFLE_EXCHANGE, SHUFFLED_HASH_JOIN).matchesCpu();
  }

  /**
   * One side's stage stays on the CPU (levenshtein has no GPU version), so its rows go through Spark's row shuffle;
   * the other side's through the GPU's: a join answer is right only if both put every key in the same partition.
   */
  @Test
  void gpuShuffledSideMeetsCpuShuffledSide() {
    query("SELECT a.id, b.id FROM (SELECT id, long_a FROM all_types WHERE int_a > 0) a JOIN "
        + "(SELECT id, long_b FROM all_types WHERE levenshtein(str_a, 'ab') > 1) b ON a.long_a = b.long_b")
        .conf(NO_BROADCAST, "-1").gpuNodes(SHUFFLE_EXCHANGE).cpuNodes("ShuffleExchangeExec").matchesCpu();
  }

  /** The same aggregate twice: adaptive execution reuses the first one's GPU shuffle for the second. */
  @Test
  void reusedExchange() {
    query("WITH agg AS (SELECT skew, count(*) AS c, sum(int_a) AS s FROM all_types GROUP BY skew) "
        + "SELECT * FROM agg a JOIN agg b ON a.skew = b.skew")
        .conf(NO_BROADCAST, "-1").gpuNodes(SHUFFLE_EXCHANGE).matchesCpu();
  }

  /**
   * Adaptive execution splits the hot key's partition of a skewed join (thresholds lowered so this small table
   * counts as skewed): its reads of the GPU shuffle are partial, by map ranges, and the answer must not change.
   */
  @Test
  void skewedJoinSplitsItsHotPartition() {
    String sql = "SELECT a.id, b.id FROM all_types a JOIN (SELECT id, skew FROM all_types WHERE id % 10 = 0) b "
        + "ON a.skew = b.skew";
    Map<String, String> skewed = Map.of(QueryCheck.ADAPTIVE, "true", NO_BROADCAST, "-1",
        "spark.sql.adaptive.coalescePartitions.enabled", "false",
        "spark.sql.adaptive.skewJoin.skewedPartitionFactor", "2",
        "spark.sql.adaptive.skewJoin.skewedPartitionThresholdInBytes", "1",
        "spark.sql.adaptive.advisoryPartitionSizeInBytes", "256");
    String plan = withConf(skewed, () -> {
      Dataset<Row> query = spark().sql(sql);
      query.collectAsList();
      return query.queryExecution().executedPlan().treeString();
    });
    assertTrue(plan.contains("skewed") && plan.contains("GpuShuffleExchange"), plan);
    QueryCheck check = query(sql).adaptive(Adaptive.ON).gpuNodes(SHUFFLE_EXCHANGE);
    skewed.forEach(check::conf);
    check.matchesCpu();
  }

  /**
   * repartition(n) without columns: round-robin from Spark's start position in each map task. With Spark's sort
   * before round-robin off, both place every row alike (same scan, same row order), which spark_partition_id()
   * reads; n = 1 plans as a single partition.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 3, 200})
  void roundRobinPlacesRowsWhereSparkDoes(int n) {
    query("SELECT *, spark_partition_id() AS p FROM (SELECT /*+ REPARTITION(" + n + ") */ id, str_a, int_a, "
        + "dec_a, double_a, bin_b, date_a FROM all_types WHERE id % 5 <> 0)")
        .conf(SORT_BEFORE_REPARTITION, "false").gpuNodes(SHUFFLE_EXCHANGE, FILTER).matchesCpu();
  }

  /**
   * With Spark's sort before round-robin on (the default), Spark deals its rows in another order, so which row goes
   * where differs; the rows, and how many land in each partition (the task's start and row count), do not.
   */
  @Test
  void roundRobinKeepsSparksRowsAndPartitionSizes() {
    String repartitioned = "SELECT /*+ REPARTITION(3) */ * FROM all_types WHERE int_a IS NULL OR int_a > 0";
    query(repartitioned).gpuNodes(SHUFFLE_EXCHANGE, FILTER).matchesCpu();
    query("SELECT spark_partition_id() AS p, count(*) FROM (" + repartitioned + ") GROUP BY 1")
        .gpuNodes(SHUFFLE_EXCHANGE).matchesCpu();
  }

  @Test
  void roundRobinOfTheDatasetApiFeedsAnAggregateAndAJoin() {
    query("repartition(200) then a grouped aggregate", s -> s.table("all_types").filter("id % 3 <> 0")
        .repartition(200).groupBy("str_a").agg(functions.count("*"), functions.sum("int_a"), functions.max("dec_a")))
        .gpuNodes(SHUFFLE_EXCHANGE, HASH_AGGREGATE).matchesCpu();
    query("SELECT a.id, b.id, a.str_a FROM (SELECT /*+ REPARTITION(3) */ id, str_a, int_a FROM all_types "
        + "WHERE id % 2 = 0) a JOIN (SELECT /*+ REPARTITION(200) */ id, str_b, int_b FROM all_types) b "
        + "ON a.str_a = b.str_b AND a.int_a = b.int_b")
        .conf(NO_BROADCAST, "-1").gpuNodes(SHUFFLE_EXCHANGE, SHUFFLED_HASH_JOIN).matchesCpu();
  }

  @Test
  void roundRobinOfNoRows() {
    query("SELECT /*+ REPARTITION(3) */ id, str_a FROM all_types WHERE id < 0").adaptive(Adaptive.OFF)
        .gpuNodes(SHUFFLE_EXCHANGE).matchesCpu();
    query("SELECT count(*), max(str_a) FROM (SELECT /*+ REPARTITION(200) */ id, str_a FROM empty_types)")
        .gpuNodes(SHUFFLE_EXCHANGE).matchesCpu();
  }

  /**
   * Round-robin placement follows the order of a map task's input (Spark's sort before it is not reproduced): over a
   * scan that order is fixed and the map output is determinate. Over a shuffle read it is not: with Spark's sort on
   * (the default) that exchange stays Spark's, whose sort makes its output determinate; with the sort off the GPU
   * exchange takes it, and its output is indeterminate as Spark's is then, so Spark reruns the whole map stage rather
   * than one task.
   */
  @Test
  void roundRobinOverAShuffleRead() {
    assertEquals(DeterministicLevel$.MODULE$.DETERMINATE(),
        roundRobinMapOutput("SELECT /*+ REPARTITION(5) */ id, str_a FROM all_types WHERE id % 2 = 0", Map.of()));
    String overShuffle = "SELECT /*+ REPARTITION(5) */ * FROM (SELECT str_a, count(*) AS c FROM all_types GROUP BY "
        + "str_a)";
    query(overShuffle).fallsBack("ShuffleExchangeExec", "round-robin over a shuffle's output");
    assertEquals(DeterministicLevel$.MODULE$.INDETERMINATE(),
        roundRobinMapOutput(overShuffle, Map.of(SORT_BEFORE_REPARTITION, "false")));
    query(overShuffle).conf(SORT_BEFORE_REPARTITION, "false").gpuNodes(SHUFFLE_EXCHANGE).matchesCpu();
  }

  /** The deterministic level of the map output of the query's top GPU round-robin exchange. */
  private static Object roundRobinMapOutput(String sql, Map<String, String> extra) {
    Map<String, String> settings = new HashMap<>(Map.of(QueryCheck.ENABLED, "true", QueryCheck.ADAPTIVE,
        "false"));
    settings.putAll(extra);
    return withConf(settings, () -> {
      SparkPlan exchange = PlanNodes.all(spark().sql(sql).queryExecution().executedPlan()).stream()
          .filter(p -> p instanceof GpuShuffleExchangeExec e
              && e.outputPartitioning() instanceof RoundRobinPartitioning)
          .findFirst().orElseThrow();
      RDD<?> rdd = exchange.executeColumnar();
      while (!(rdd.dependencies().head() instanceof ShuffleDependency<?, ?, ?>)) rdd = rdd.dependencies().head().rdd();
      return ((ShuffleDependency<?, ?, ?>) rdd.dependencies().head()).rdd().outputDeterministicLevel();
    });
  }

  /**
   * REBALANCE without columns (a hint only adaptive execution plans) is round-robin over spark.sql.shuffle.partitions
   * that it may coalesce, unlike repartition(n): its read of the GPU shuffle is Spark's coalesced read.
   */
  @Test
  void adaptiveExecutionCoalescesARebalance() {
    String sql = "SELECT /*+ REBALANCE */ id, str_a FROM all_types WHERE id % 7 <> 0";
    Map<String, String> coalescing = Map.of(QueryCheck.ADAPTIVE, "true",
        "spark.sql.adaptive.coalescePartitions.minPartitionSize", "1", "spark.sql.shuffle.partitions", "50");
    String plan = withConf(coalescing, () -> {
      Dataset<Row> query = spark().sql(sql);
      query.collectAsList();
      return query.queryExecution().executedPlan().treeString();
    });
    assertTrue(plan.contains("AQEShuffleRead coalesced") && plan.contains("GpuShuffleExchange"), plan);
    QueryCheck check = query(sql).adaptive(Adaptive.ON).gpuNodes(SHUFFLE_EXCHANGE);
    coalescing.forEach(check::conf);
    check.matchesCpu();
  }

  @Test
  void disabledBySwitch() {
    query("SELECT str_a, count(*) FROM all_types GROUP BY str_a")
        .conf("spark.warp.exec.ShuffleExchangeExec.enabled", "false")
        .fallsBack("ShuffleExchangeExec", "ShuffleExchangeExec is disabled");
  }

  @Test
  void rangePartitioningByAnExpressionStaysOnTheCpu() {
    query("SELECT id, str_a FROM all_types WHERE int_a > 0 ORDER BY length(str_a), id")
        .fallsBack("ShuffleExchangeExec", "is not a column of the input");
  }
}
