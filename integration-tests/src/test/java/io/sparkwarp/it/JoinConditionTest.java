package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.PROJECT;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.it.data.JoinTables;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.JoinKind;
import io.sparkwarp.it.harness.JoinStrategy;
import io.sparkwarp.it.harness.QueryCheck;
import io.sparkwarp.join.JoinType;
import io.sparkwarp.plugin.exec.GpuHashJoinExec;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.spark.sql.execution.SparkPlan;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Residual conditions beyond the equal keys, on the GPU for every join type and operator: a key match counts only
 * where the condition is true (null is not), so an outer join null-extends the rows whose every key match failed it,
 * a semi join keeps and an anti join drops the rows with a passing match, and a build side's own rows are matched
 * across all stream batches. Conditions read both sides or one, meet nulls, reject every pair or none; keys repeat,
 * sides are empty, one key matches hundreds of rows in small chunks; an error the condition raises is Spark's.
 */
class JoinConditionTest extends GpuTestBase {
  /**
   * Conditions over both sides with nulls in what they read: an int comparison; decimal arithmetic or a string
   * comparison; a test of one side's nulls or the other's values; string predicates (matchers run for the pairs).
   */
  private static final List<String> RESIDUALS = List.of("l.v < r.v", "l.k_dec12 + r.k_dec12 > 0 OR l.k_str < r.k_str",
      "r.k_date IS NULL OR l.id % 3 <> 0", "l.k_str LIKE '%a%' OR r.k_str RLIKE '^[b€]'");
  /** Never true, so every key match fails: the ids are small and never null. */
  private static final String REJECTS_ALL = "l.id + r.id < 0";
  /** Always true: every key match stands. */
  private static final String REJECTS_NONE = "l.id + r.id >= 0";
  private static final String ROWS = "spark.warp.batch.targetRows";

  @BeforeAll
  static void registerJoinTables() {
    JoinTables.register(spark());
  }

  /** Every join type with each operator it can be planned as, and each residual. */
  static Stream<Arguments> kindsStrategiesAndResiduals() {
    return Arrays.stream(JoinKind.values()).flatMap(kind -> kind.strategies().stream()
        .flatMap(strategy -> RESIDUALS.stream().map(residual -> Arguments.of(kind, strategy, residual))));
  }

  @ParameterizedTest(name = "{0} as {1} and {2}")
  @MethodSource("kindsStrategiesAndResiduals")
  void residualCondition(JoinKind kind, JoinStrategy strategy, String residual) {
    join(kind, strategy, "join_probe l", "join_build r", "l.k_int = r.k_int AND (" + residual + ")").matchesCpu();
  }

  static Stream<Arguments> kindsAndStrategies() {
    return Arrays.stream(JoinKind.values()).flatMap(kind -> kind.strategies().stream()
        .map(strategy -> Arguments.of(kind, strategy)));
  }

  @ParameterizedTest(name = "{0} as {1}")
  @MethodSource("kindsAndStrategies")
  void conditionRejectingEveryKeyMatch(JoinKind kind, JoinStrategy strategy) {
    join(kind, strategy, "join_probe l", "join_build r", "l.k_str = r.k_str AND " + REJECTS_ALL).matchesCpu();
  }

  @ParameterizedTest(name = "{0} as {1}")
  @MethodSource("kindsAndStrategies")
  void conditionRejectingNoKeyMatch(JoinKind kind, JoinStrategy strategy) {
    join(kind, strategy, "join_probe l", "join_build r", "l.k_str = r.k_str AND " + REJECTS_NONE).matchesCpu();
  }

  /** One side empty, the other with its rows' conditions unmet: only null-extended rows or none. */
  @ParameterizedTest(name = "{0}")
  @EnumSource(JoinKind.class)
  void emptySides(JoinKind kind) {
    for (String[] sides : new String[][] {{"(SELECT * FROM join_probe WHERE id < 0) l", "join_build r"},
        {"join_probe l", "(SELECT * FROM join_build WHERE id < 0) r"}}) {
      join(kind, kind.strategy(kind.ordinal()), sides[0], sides[1], "l.k_int = r.k_int AND l.v < r.v")
          .conf(JoinStrategy.ADAPTIVE_EXCLUDED_RULES, JoinStrategy.PROPAGATE_EMPTY_RELATION).matchesCpu();
    }
  }

  /**
   * A key matching hundreds of rows on the build side, the stream side in batches of 64 rows and the probe in chunks
   * of 64 pairs: a row's matches, some passing and some not, spread over chunks and batches.
   */
  @ParameterizedTest(name = "{0} as {1}")
  @MethodSource("kindsAndStrategies")
  void hotKeyInSmallChunks(JoinKind kind, JoinStrategy strategy) {
    join(kind, strategy, "join_probe l", "join_build r", "l.hot = r.hot AND l.v <= r.v").conf(ROWS, "64")
        .matchesCpu();
  }

  /**
   * The outer side built: its rows are matched only by passing pairs, over every stream batch (Spark's shuffled hash
   * join builds the left side of a left join, or the right of a right join, when hinted so).
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(value = JoinKind.class, names = {"LEFT_OUTER", "RIGHT_OUTER", "FULL_OUTER"})
  void outerSideBuilt(JoinKind kind) {
    boolean buildLeft = kind != JoinKind.RIGHT_OUTER;
    JoinStrategy strategy = JoinStrategy.SHUFFLED_HASH;
    String sql = "SELECT " + strategy.hint(buildLeft ? JoinKind.LEFT : JoinKind.RIGHT) + " "
        + kind.select("l.id, l.v", "r.id, r.v") + " FROM join_probe l " + kind.sql()
        + " join_build r ON l.k_int = r.k_int AND l.v > r.v";
    strategy.check(sql).conf(ROWS, "64").matchesCpu();
    SparkPlan plan = withConf(Map.of(QueryCheck.ENABLED, "true", QueryCheck.ADAPTIVE, "false",
        JoinStrategy.AUTO_BROADCAST_THRESHOLD, "-1"), () -> spark().sql(sql).queryExecution().executedPlan());
    GpuHashJoinExec join = (GpuHashJoinExec) PlanNodes.all(plan).stream()
        .filter(node -> node instanceof GpuHashJoinExec).findFirst().orElseThrow();
    assertEquals(buildLeft ? JoinType.Side.LEFT : JoinType.Side.RIGHT, join.spec().buildSide(), plan.treeString());
  }

  /** Spark evaluates the condition for key matches only; a division by zero there fails both runs alike. */
  @ParameterizedTest(name = "{0}")
  @EnumSource(JoinStrategy.class)
  void conditionErrorIsSparks(JoinStrategy strategy) {
    join(JoinKind.LEFT_OUTER, strategy, "join_probe l", "join_build r", "l.k_int = r.k_int AND l.v / (r.v - r.v) > 0")
        .conf("spark.sql.ansi.enabled", "true").failsLikeCpu("DIVIDE_BY_ZERO");
  }

  @Test
  void conditionSparkCannotRunOnTheGpuKeepsTheJoinOnTheCpu() {
    JoinStrategy.SHUFFLED_HASH.checkFallsBack("SELECT " + JoinStrategy.SHUFFLED_HASH.hint(JoinKind.RIGHT)
        + " l.id, r.id FROM join_probe l LEFT JOIN join_build r ON l.k_int = r.k_int AND concat(l.k_str, r.k_str) "
        + "<> 'ab'", "residual condition: expression concat");
  }

  @ParameterizedTest
  @EnumSource(JoinStrategy.class)
  void feedsAGpuFilterAndProjection(JoinStrategy strategy) {
    // the filter reads the null-extended side without rejecting its nulls, so the outer join stays outer and the
    // filter stays above it
    strategy.check("SELECT " + strategy.hint("r") + """
         l.id, r.id, CAST(l.v AS BIGINT) + COALESCE(r.v, 0), l.k_dec12 - r.k_dec12, r.k_date IS NULL
        FROM join_probe l LEFT JOIN join_build r ON l.k_date = r.k_date AND l.v <> r.v
        WHERE COALESCE(r.k_str, l.k_str) <> 'a' OR r.v IS NULL""").gpuNodes(FILTER, PROJECT).matchesCpu();
  }

  private static QueryCheck join(JoinKind kind, JoinStrategy strategy, String left,
      String right, String on) {
    return strategy.check("SELECT " + strategy.hint(kind.buildSide()) + " "
        + kind.select("l.id, l.v, l.k_str", "r.id, r.v, r.k_str") + " FROM " + left + " " + kind.sql() + " " + right
        + " ON " + on);
  }
}
