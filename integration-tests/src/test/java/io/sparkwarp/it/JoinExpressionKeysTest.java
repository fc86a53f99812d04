package io.sparkwarp.it;

import io.sparkwarp.it.data.JoinTables;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.JoinKind;
import io.sparkwarp.it.harness.JoinStrategy;
import io.sparkwarp.it.harness.QueryCheck;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Join keys that are expressions, computed on the GPU before the build and the probe: arithmetic, the casts Spark
 * puts between keys of different types (int, long, decimal, date, timestamp), expressions that make or consume
 * nulls, the same under {@code <=>}; Spark's own errors when a key overflows in ANSI mode. Every join type meets
 * every operator on one expression key; the other keys turn through the join types and operators.
 */
class JoinExpressionKeysTest extends GpuTestBase {
  /** Key conditions whose keys are expressions on one side or both, none able to overflow. */
  private static final List<String> KEYS = List.of(
      // arithmetic over a cast, one side computed
      "CAST(l.k_int AS BIGINT) + 1 = r.k_long",
      // Spark casts the int key to bigint, to decimal(12,2), the date to a timestamp, decimal(12,2) to (18,4)
      "l.k_int = r.k_long",
      "l.k_int = r.k_dec12",
      "l.k_date = r.k_ts",
      "l.k_dec12 = r.k_dec18",
      // both sides computed, small domains so that keys repeat
      "l.v % 5 = r.k_int % 5",
      // null-consuming and null-producing keys
      "COALESCE(l.k_int, l.v) = r.k_int",
      "CASE WHEN l.v > 0 THEN l.k_int END = r.k_int",
      // null-safe: a computed null matches a null only
      "CASE WHEN l.v > 0 THEN l.k_int END <=> r.k_int",
      "l.k_dec12 * 2 <=> r.k_dec12 * 2",
      // two keys, one computed
      "l.k_int + 0L = r.k_long AND l.k_str = r.k_str");

  @BeforeAll
  static void registerJoinTables() {
    JoinTables.register(spark());
  }

  /** Each key condition with one join type and operator, turning through both. */
  static Stream<Arguments> keysKindsAndStrategies() {
    JoinKind[] kinds = JoinKind.values();
    return IntStream.range(0, KEYS.size()).mapToObj(i -> Arguments.of(KEYS.get(i), kinds[i % kinds.length],
        kinds[i % kinds.length].strategy(i)));
  }

  @ParameterizedTest(name = "{0}: {1} as {2}")
  @MethodSource("keysKindsAndStrategies")
  void expressionKeys(String keys, JoinKind kind, JoinStrategy strategy) {
    join(kind, strategy, keys).matchesCpu();
  }

  static Stream<Arguments> kindsAndStrategies() {
    return Arrays.stream(JoinKind.values()).flatMap(kind -> kind.strategies().stream()
        .map(strategy -> Arguments.of(kind, strategy)));
  }

  /** A cast key on one side, a key computed on both sides (so on the build side too), and a residual condition. */
  @ParameterizedTest(name = "{0} as {1}")
  @MethodSource("kindsAndStrategies")
  void computedKeysOnEveryJoinTypeAndOperator(JoinKind kind, JoinStrategy strategy) {
    join(kind, strategy, "l.k_int = r.k_long AND l.v % 7 = r.v % 7 AND l.v < r.v").matchesCpu();
  }

  /** With ANSI mode off, integer keys wrap around as Spark's do. */
  @ParameterizedTest(name = "{0}")
  @EnumSource(JoinStrategy.class)
  void wrappingArithmetic(JoinStrategy strategy) {
    join(JoinKind.INNER, strategy, "l.k_int * 2 = r.k_int + r.k_int").conf("spark.sql.ansi.enabled", "false")
        .matchesCpu();
  }

  /**
   * With ANSI mode on, a key that overflows (the keys hold the int extremes) fails the query as Spark does, here in
   * the GPU join's own key projection over a broadcast join's stream side (a shuffled join's keys are computed, and
   * fail, first in the shuffle that partitions by them).
   */
  @Test
  void overflowingKeyFailsLikeSpark() {
    join(JoinKind.INNER, JoinStrategy.BROADCAST, "l.k_int + 1 = r.k_int").conf("spark.sql.ansi.enabled", "true")
        .failsLikeCpu("ARITHMETIC_OVERFLOW");
  }

  private static QueryCheck join(JoinKind kind, JoinStrategy strategy, String on) {
    return strategy.check("SELECT " + strategy.hint(kind.buildSide()) + " "
        + kind.select("l.id, l.k_int, l.v", "r.id, r.k_int, r.v") + " FROM join_probe l " + kind.sql()
        + " join_build r ON " + on);
  }
}
