package io.sparkwarp.it;

import io.sparkwarp.it.data.JoinTables;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.JoinKind;
import io.sparkwarp.it.harness.JoinStrategy;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Sides at the edges, for every join type: one side filtered to nothing (the build side or the probe side, as the
 * join type has them), and unique keys where every row matches or none does. Adaptive execution would replace a
 * join with an empty side by its answer; here it is kept, as the first run of a query sees it.
 */
class JoinEdgeTest extends GpuTestBase {
  /** Relations {@code l} and {@code r} and the condition; ids below {@value JoinTables#BUILD_ROWS} are on both. */
  enum Sides {
    EMPTY_LEFT("(SELECT * FROM join_probe WHERE id < 0) l", "join_build r", "l.k_str = r.k_str"),
    EMPTY_RIGHT("join_probe l", "(SELECT * FROM join_build WHERE id < 0) r", "l.k_str = r.k_str"),
    ALL_MATCH("(SELECT * FROM join_probe WHERE id < " + JoinTables.BUILD_ROWS + ") l", "join_build r", "l.id = r.id"),
    NONE_MATCH("(SELECT * FROM join_probe WHERE id >= " + JoinTables.BUILD_ROWS + ") l", "join_build r", "l.id = r.id");

    final String left;
    final String right;
    final String condition;

    Sides(String left, String right, String condition) {
      this.left = left;
      this.right = right;
      this.condition = condition;
    }
  }

  @BeforeAll
  static void registerJoinTables() {
    JoinTables.register(spark());
  }

  static Stream<Arguments> sidesAndKinds() {
    return Arrays.stream(Sides.values()).flatMap(sides -> Arrays.stream(JoinKind.values())
        .map(kind -> Arguments.of(sides, kind, kind.strategy(sides.ordinal() + kind.ordinal()))));
  }

  @ParameterizedTest(name = "{0}: {1} as {2}")
  @MethodSource("sidesAndKinds")
  void join(Sides sides, JoinKind kind, JoinStrategy strategy) {
    strategy.check("SELECT " + strategy.hint(kind.buildSide()) + " " + kind.select("l.id, l.k_str", "r.id, r.k_str")
            + " FROM " + sides.left + " " + kind.sql() + " " + sides.right + " ON " + sides.condition)
        .conf(JoinStrategy.ADAPTIVE_EXCLUDED_RULES, JoinStrategy.PROPAGATE_EMPTY_RELATION)
        .matchesCpu();
  }
}
