package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.PROJECT;

import io.sparkwarp.it.data.JoinTables;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.JoinKind;
import io.sparkwarp.it.harness.JoinStrategy;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Conditions beyond the equal keys: a residual condition over both sides, on the GPU for inner joins; for the other
 * types, where it decides whether a key match counts (an outer join null-extends, a semi join drops and an anti join
 * keeps rows whose keys matched), the join stays on the CPU with that reason. And a join whose output a GPU filter
 * and projection consume.
 */
class JoinConditionTest extends GpuTestBase {
  /** Residual conditions: an int comparison, and decimal arithmetic or a string comparison under nulls. */
  private static final List<String> RESIDUALS = List.of("l.v < r.v", "l.k_dec12 + r.k_dec12 > 0 OR l.k_str < r.k_str");

  @BeforeAll
  static void registerJoinTables() {
    JoinTables.register(spark());
  }

  static Stream<Arguments> kindsAndResiduals() {
    return Arrays.stream(JoinKind.values()).flatMap(kind -> IntStream.range(0, RESIDUALS.size())
        .mapToObj(residual -> Arguments.of(kind, kind.strategy(kind.ordinal() + residual), RESIDUALS.get(residual))));
  }

  @ParameterizedTest(name = "{0} as {1} and {2}")
  @MethodSource("kindsAndResiduals")
  void residualCondition(JoinKind kind, JoinStrategy strategy, String residual) {
    String sql = "SELECT " + strategy.hint(kind.buildSide()) + " "
        + kind.select("l.id, l.v, l.k_str", "r.id, r.v, r.k_str") + " FROM join_probe l " + kind.sql()
        + " join_build r ON l.k_int = r.k_int AND (" + residual + ")";
    if (kind == JoinKind.INNER) {
      strategy.check(sql).matchesCpu();
    } else {
      // deciding which key matches count needs the condition inside the probe: only inner joins filter afterwards
      strategy.checkFallsBack(sql, "residual condition");
    }
  }

  @ParameterizedTest
  @EnumSource(JoinStrategy.class)
  void feedsAGpuFilterAndProjection(JoinStrategy strategy) {
    // the filter reads the null-extended side without rejecting its nulls, so the outer join stays outer and the
    // filter stays above it
    strategy.check("SELECT " + strategy.hint("r") + """
         l.id, r.id, CAST(l.v AS BIGINT) + COALESCE(r.v, 0), l.k_dec12 - r.k_dec12, r.k_date IS NULL
        FROM join_probe l LEFT JOIN join_build r ON l.k_date = r.k_date
        WHERE COALESCE(r.k_str, l.k_str) <> 'a' OR r.v IS NULL""").gpuNodes(FILTER, PROJECT).matchesCpu();
  }
}
