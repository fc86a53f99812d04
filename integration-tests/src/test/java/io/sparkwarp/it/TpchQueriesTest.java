package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.BROADCAST_EXCHANGE;
import static io.sparkwarp.it.harness.GpuNodes.BROADCAST_HASH_JOIN;
import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.GPU_TO_HOST;
import static io.sparkwarp.it.harness.GpuNodes.ONTO_GPU;
import static io.sparkwarp.it.harness.GpuNodes.SHUFFLED_HASH_JOIN;
import static io.sparkwarp.it.harness.GpuNodes.SHUFFLE_EXCHANGE;
import static io.sparkwarp.it.harness.GpuNodes.SORT_MERGE_JOIN;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.DemoQueries.DemoQuery;
import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.examples.tpch.TpchQueries;
import io.sparkwarp.it.data.TpchViews;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.JoinStrategy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * All 22 TPC-H queries over snappy Parquet at scale factor {@value TpchViews#SCALE_FACTOR}: the plugin's answer
 * equals Spark's, and the operators the plugin converts today are on the GPU (so a silent fallback fails). At this
 * scale every join's build side is under Spark's broadcast threshold, so joins run as the GPU broadcast hash join
 * over the GPU broadcast exchange.
 */
class TpchQueriesTest extends GpuTestBase {
  /**
   * Queries with no join on the GPU: Q1 and Q6 have none, Q15's is on a sum (decimal(22,2), wider than the
   * device's 18 digits).
   */
  private static final Set<String> NO_GPU_JOIN = Set.of("Q1", "Q6", "Q15");
  /**
   * Spark's aggregate, sort, project and broadcast exchange operators, none of which a TPC-H plan keeps on the CPU
   * (Q22's projection computes its country code, substring(c_phone, 1, 2); every broadcast is the GPU's).
   */
  private static final Set<String> CPU_OPERATORS = Set.of("HashAggregateExec", "ObjectHashAggregateExec",
      "SortAggregateExec", "SortExec", "ProjectExec", "BroadcastExchangeExec");

  @BeforeAll
  static void registerTpch() {
    TpchViews.register(spark());
  }

  static Stream<DemoQuery> queries() {
    return TpchQueries.all(TpchViews.SCALE_FACTOR).stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("queries")
  void matchesSpark(DemoQuery q) {
    String number = q.name().substring(0, q.name().indexOf(' '));
    // the answer leaves the device through a download or a GPU shuffle's read (Q20's ORDER BY)
    List<String> nodes = new ArrayList<>(List.of(ONTO_GPU, GPU_TO_HOST + "|" + SHUFFLE_EXCHANGE, FILTER));
    if (!NO_GPU_JOIN.contains(number)) nodes.addAll(List.of(BROADCAST_HASH_JOIN, BROADCAST_EXCHANGE));
    // an empty side (Q17's parts at this scale) must not let adaptive execution drop the join from the plan
    query(q.sql()).conf(JoinStrategy.ADAPTIVE_EXCLUDED_RULES, JoinStrategy.PROPAGATE_EMPTY_RELATION)
        .gpuNodes(nodes.toArray(String[]::new)).matchesCpu();
    assertStaysOnDevice(q.sql(), Map.of());
  }

  /**
   * Every join shuffled, the shape larger scale factors take: the same answers, the joins and exchanges on the GPU,
   * and no device batch downloaded only to be uploaded again.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("queries")
  void matchesSparkWithShuffledJoins(DemoQuery q) {
    String number = q.name().substring(0, q.name().indexOf(' '));
    List<String> nodes = new ArrayList<>(List.of(ONTO_GPU, SHUFFLE_EXCHANGE));
    if (!NO_GPU_JOIN.contains(number)) nodes.add(SHUFFLED_HASH_JOIN);
    query(q.sql()).conf(JoinStrategy.AUTO_BROADCAST_THRESHOLD, "-1")
        .conf(JoinStrategy.ADAPTIVE_EXCLUDED_RULES, JoinStrategy.PROPAGATE_EMPTY_RELATION)
        .gpuNodes(nodes.toArray(String[]::new)).matchesCpu();
    assertStaysOnDevice(q.sql(), Map.of(JoinStrategy.AUTO_BROADCAST_THRESHOLD, "-1"));
  }

  /**
   * Every join shuffled and run as the GPU merge join ({@code spark.warp.join.algorithm=mergePath}): the same
   * answers, with the merge joins in the plan.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("queries")
  void matchesSparkWithMergePathJoins(DemoQuery q) {
    String number = q.name().substring(0, q.name().indexOf(' '));
    List<String> nodes = new ArrayList<>(List.of(ONTO_GPU, SHUFFLE_EXCHANGE));
    if (!NO_GPU_JOIN.contains(number)) nodes.add(SORT_MERGE_JOIN);
    query(q.sql()).conf(JoinStrategy.AUTO_BROADCAST_THRESHOLD, "-1").conf(JoinStrategy.JOIN_ALGORITHM, "mergePath")
        .conf(JoinStrategy.ADAPTIVE_EXCLUDED_RULES, JoinStrategy.PROPAGATE_EMPTY_RELATION)
        .gpuNodes(nodes.toArray(String[]::new)).matchesCpu();
  }

  /** No device batch downloaded only to be uploaded again, and no aggregate, sort or projection left on the CPU. */
  private static void assertStaysOnDevice(String sql, Map<String, String> settings) {
    SparkPlan plan = withConf(settings, () -> {
      Dataset<Row> onGpu = spark().sql(sql);
      onGpu.collectAsList();  // the executed plan of an adaptive query is final once it ran
      return onGpu.queryExecution().executedPlan();
    });
    List<String> roundTrips = PlanNodes.roundTrips(plan);
    assertTrue(roundTrips.isEmpty(), "device batches downloaded only to be uploaded again: " + roundTrips);
    List<String> onCpu = PlanNodes.names(plan).stream().filter(CPU_OPERATORS::contains).toList();
    assertTrue(onCpu.isEmpty(), onCpu + " left on the CPU: " + plan.treeString());
  }
}
