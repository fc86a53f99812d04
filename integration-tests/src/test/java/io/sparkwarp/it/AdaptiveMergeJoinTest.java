package io.sparkwarp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.JoinKind;
import io.sparkwarp.it.harness.JoinStrategy;
import io.sparkwarp.it.harness.QueryCheck;
import io.sparkwarp.plugin.exec.GpuMetrics;
import io.sparkwarp.plugin.exec.GpuShuffledHashJoinExec;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code spark.warp.join.algorithm=auto} (the default): a shuffled join on fixed-width keys merges a partition whose
 * stream side turns out to fit {@code spark.warp.join.autoMergeBytes} and to hold at most 4 rows per build row, and
 * whose build keys repeat; otherwise (unique build keys, a longer stream side, string keys, {@code hash}) the
 * partition is hashed. Every join type must equal
 * Spark either way, and the switch must happen exactly where the rule says (the join's "partitions joined by merge
 * path" metric).
 */
class AdaptiveMergeJoinTest extends GpuTestBase {
  /** 40 rows per key (nulls and strings with multi-byte characters among them) over 3 partitions. */
  private static final String REPEATED = """
      SELECT id, CASE WHEN id % 97 = 0 THEN NULL ELSE id % 200 END AS k, concat('ключ', id % 7) AS s
      FROM range(0, 8000, 1, 3)""";
  /** Keys from -50 to 249: some match nothing, a few are null. */
  private static final String PROBE = """
      SELECT id, CASE WHEN id % 101 = 0 THEN NULL ELSE id % 300 - 50 END AS k, concat('é', id % 3) AS s
      FROM range(0, 2000, 1, 3)""";
  /** Unique keys from 0 to 2999, a few null (nulls never match, so they do not repeat a key). */
  private static final String UNIQUE = """
      SELECT id, CASE WHEN id % 89 = 0 THEN NULL ELSE id END AS k, concat('ü', id % 5) AS s
      FROM range(0, 3000, 1, 3)""";
  /** 10 rows for every row of PROBE. */
  private static final String LONG = """
      SELECT id, id % 300 AS k, concat('ключ', id % 3) AS s FROM range(0, 20000, 1, 3)""";

  /** {@code kind} with {@code build} on the side a hash join builds, joined on {@code key}. */
  private static String join(JoinKind kind, String build, String stream, String key) {
    boolean buildLeft = kind.buildSide().equals(JoinKind.LEFT);
    return "SELECT " + JoinStrategy.SHUFFLED_HASH.hint(kind.buildSide()) + " " + kind.select("l.id, l.k, l.s",
        "r.id, r.k, r.s") + " FROM (" + (buildLeft ? build : stream) + ") l " + kind.sql() + " ("
        + (buildLeft ? stream : build) + ") r ON l." + key + " = r." + key;
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(JoinKind.class)
  void comparableSidesAreMergedAndMatchSpark(JoinKind kind) {
    checkComparableSides(kind, REPEATED, 3);
  }

  /** Unique build keys: the hash join over the unique-key table the check built, for every join type. */
  @ParameterizedTest(name = "{0}")
  @EnumSource(JoinKind.class)
  void uniqueBuildKeysStayHashedAndMatchSpark(JoinKind kind) {
    checkComparableSides(kind, UNIQUE, 0);
  }

  /** {@code build} joined with PROBE (comparable sides) equals Spark, with {@code merged} partitions merged. */
  private static void checkComparableSides(JoinKind kind, String build, long merged) {
    String sql = join(kind, build, PROBE, "k");
    JoinStrategy.SHUFFLED_HASH.check(sql).matchesCpu();
    assertEquals(merged, mergedPartitions(sql, Map.of()), kind + ": partitions merged");
  }

  @Test
  void aStreamSideManyTimesTheBuildStaysHashed() {
    String sql = join(JoinKind.LEFT_OUTER, PROBE, LONG, "k");
    JoinStrategy.SHUFFLED_HASH.check(sql).matchesCpu();
    assertEquals(0, mergedPartitions(sql, Map.of()));
  }

  @Test
  void aStreamSidePastTheBoundStaysHashed() {
    String sql = join(JoinKind.LEFT_OUTER, REPEATED, PROBE, "k");
    Map<String, String> small = Map.of("spark.warp.join.autoMergeBytes", "1k", "spark.warp.batch.targetRows", "128");
    QueryCheck check = JoinStrategy.SHUFFLED_HASH.check(sql);
    small.forEach(check::conf);
    check.matchesCpu();
    assertEquals(0, mergedPartitions(sql, small));
  }

  @Test
  void stringKeysStayHashed() {
    // 2.5 stream rows per build row: merged, were the key not a string
    String sql = join(JoinKind.LEFT_SEMI, REPEATED, LONG, "s");
    assertEquals(0, mergedPartitions(sql, Map.of()));
  }

  @Test
  void hashAlgorithmNeverMerges() {
    assertEquals(0, mergedPartitions(join(JoinKind.INNER, REPEATED, PROBE, "k"),
        Map.of(JoinStrategy.JOIN_ALGORITHM, "hash")));
  }

  /** Runs {@code sql} with the plugin and returns the merged partitions its shuffled GPU joins report. */
  private static long mergedPartitions(String sql, Map<String, String> extra) {
    Map<String, String> settings = new HashMap<>(Map.of(QueryCheck.ENABLED, "true", QueryCheck.ADAPTIVE, "false",
        JoinStrategy.AUTO_BROADCAST_THRESHOLD, "-1", "spark.sql.shuffle.partitions", "3"));
    settings.putAll(extra);
    return withConf(settings, () -> {
      Dataset<Row> rows = spark().sql(sql);
      assertTrue(rows.collectAsList().size() > 0);
      long merged = 0;
      boolean joined = false;
      for (SparkPlan node : PlanNodes.all(rows.queryExecution().executedPlan())) {
        if (node instanceof GpuShuffledHashJoinExec j) {
          joined = true;
          merged += j.metrics().apply(GpuMetrics.MERGE_PARTITIONS).value();
        }
      }
      assertTrue(joined, "no GpuShuffledHashJoinExec in the plan");
      return merged;
    });
  }
}
