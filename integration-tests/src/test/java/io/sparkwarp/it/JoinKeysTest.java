package io.sparkwarp.it;

import io.sparkwarp.it.data.JoinTables;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.JoinKind;
import io.sparkwarp.it.harness.JoinStrategy;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * How keys match, for every join type: a null key matches nothing under {@code =}, and under {@code <=>} another
 * null only, never the zero or empty string Spark coalesces null-safe keys to; two key columns at once; one key
 * matching hundreds of build rows. The operator turns with the join type.
 */
class JoinKeysTest extends GpuTestBase {
  /** A side of nulls, zeros, empty strings and a value present on both, so that nulls decide most matches. */
  private static final String NULLS_AND_ZEROS = "(SELECT * FROM %s WHERE k_int IS NULL OR k_int IN (0, 1) "
      + "OR k_str IS NULL OR k_str IN ('', 'a'))";
  private static final String NULLS_AND_ZEROS_JOIN = String.format(NULLS_AND_ZEROS, JoinTables.PROBE) + " l {join} "
      + String.format(NULLS_AND_ZEROS, JoinTables.BUILD) + " r";
  private static final String TABLES_JOIN = "join_probe l {join} join_build r";
  private static final List<String> NULL_SAFE_KEYS = List.of("l.k_int <=> r.k_int", "l.k_str <=> r.k_str");

  @BeforeAll
  static void registerJoinTables() {
    JoinTables.register(spark());
  }

  @ParameterizedTest
  @EnumSource(JoinKind.class)
  void nullKeysNeverMatch(JoinKind kind) {
    join(kind, kind.strategy(kind.ordinal() + 2), NULLS_AND_ZEROS_JOIN, "l.k_str = r.k_str");
  }

  /** Each join type on one of the null-safe keys, in turn. */
  static Stream<Arguments> kindsAndNullSafeKeys() {
    return Arrays.stream(JoinKind.values()).map(kind -> Arguments.of(kind, kind.strategy(kind.ordinal() + 1),
        NULL_SAFE_KEYS.get(kind.ordinal() % NULL_SAFE_KEYS.size())));
  }

  @ParameterizedTest(name = "{0} as {1} on {2}")
  @MethodSource("kindsAndNullSafeKeys")
  void nullSafeKeysMatchNullsOnly(JoinKind kind, JoinStrategy strategy, String condition) {
    join(kind, strategy, NULLS_AND_ZEROS_JOIN, condition);
  }

  @ParameterizedTest
  @EnumSource(JoinKind.class)
  void twoKeyColumns(JoinKind kind) {
    join(kind, kind.strategy(kind.ordinal() + 2), TABLES_JOIN, "l.k_int = r.k_int AND l.k_str = r.k_str");
  }

  @ParameterizedTest
  @EnumSource(JoinKind.class)
  void aKeyMatchingHundredsOfRows(JoinKind kind) {
    join(kind, kind.strategy(kind.ordinal()), TABLES_JOIN, "l.hot = r.hot");
  }

  private static void join(JoinKind kind, JoinStrategy strategy, String relations, String condition) {
    strategy.check("SELECT " + strategy.hint(kind.buildSide()) + " "
        + kind.select("l.id, l.k_int, l.k_str, l.hot", "r.id, r.k_int, r.k_str, r.hot") + " FROM "
        + relations.replace("{join}", kind.sql()) + " ON " + condition).matchesCpu();
  }
}
