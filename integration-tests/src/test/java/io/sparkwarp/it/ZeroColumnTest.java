package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.BROADCAST_HASH_JOIN;
import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.GPU_TO_HOST;
import static io.sparkwarp.it.harness.GpuNodes.HASH_AGGREGATE;
import static io.sparkwarp.it.harness.GpuNodes.ONTO_GPU;

import io.sparkwarp.it.data.JoinTables;
import io.sparkwarp.it.data.TestTables;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.JoinKind;
import io.sparkwarp.it.harness.JoinStrategy;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Plans whose GPU operators pass on rows but no column: count(*) and constants over filters, projections and every
 * join, and EXISTS / IN subqueries. Batches of a row count and no columns must flow through every node.
 */
class ZeroColumnTest extends GpuTestBase {
  private static final String T = TestTables.ALL_TYPES;

  @BeforeAll
  static void registerJoinTables() {
    JoinTables.register(spark());
  }

  /** The GPU aggregate counts the rows of batches that have none of its columns (found by the fuzzer). */
  @Test
  void countOverFilter() {
    assertGpuMatchesCpu("SELECT count(*) FROM " + T + " WHERE int_a > 10", FILTER, HASH_AGGREGATE);
  }

  @Test
  void countOverFilterOfEmptyTable() {
    assertGpuMatchesCpu("SELECT count(*) FROM " + TestTables.EMPTY + " WHERE int_a > 10", FILTER, HASH_AGGREGATE);
  }

  @Test
  void countOfWholeTables() {
    assertGpuMatchesCpu("SELECT count(*), count(1) FROM " + T, HASH_AGGREGATE);
    assertGpuMatchesCpu("SELECT count(*) FROM join_probe", HASH_AGGREGATE);
  }

  @Test
  void countOverStringPredicates() {
    assertGpuMatchesCpu("SELECT count(*) FROM " + T + " WHERE str_a RLIKE '[a-c]+.' OR str_b LIKE '%a%'",
        FILTER);
  }

  @Test
  void constantOverFilter() {
    assertGpuMatchesCpu("SELECT 1 FROM " + T + " WHERE long_a < 0", FILTER, GPU_TO_HOST);
  }

  @Test
  void constantsAndCountOverComputedFilter() {
    assertGpuMatchesCpu("SELECT 1 AS one, 'x' AS x FROM " + T + " WHERE skew + 1 > 0 AND id % 3 = 1",
        FILTER);
  }

  @Test
  void countGroupedByConstantOverEmptyProjection() {
    assertGpuMatchesCpu("SELECT count(*), 7 AS g FROM (SELECT 1 AS one FROM " + T + " WHERE double_a > 0) GROUP BY 2",
        FILTER);
  }

  @Test
  void countOverProjectedNothing() {
    assertGpuMatchesCpu("SELECT count(*) FROM (SELECT int_a + 1 AS x FROM " + T + " WHERE skew = 7)", FILTER);
  }

  @Test
  void countOfEmptyProjectionOverProjection() {
    assertGpuMatchesCpu("SELECT count(*) FROM (SELECT id, CAST(int_a AS BIGINT) * 2 AS doubled FROM " + T
        + " WHERE int_a IS NOT NULL) WHERE doubled > 4", FILTER);
  }

  static Stream<Arguments> joins() {
    return Arrays.stream(JoinKind.values()).flatMap(kind -> kind.strategies().stream()
        .map(strategy -> Arguments.of(kind, strategy)));
  }

  @ParameterizedTest(name = "{0} as {1}")
  @MethodSource("joins")
  void countOverJoin(JoinKind kind, JoinStrategy strategy) {
    strategy.check("SELECT " + strategy.hint(kind.buildSide()) + " count(*) FROM join_probe l " + kind.sql()
        + " join_build r ON l.k_str = r.k_str WHERE l.v > 0").matchesCpu();
  }

  @ParameterizedTest(name = "{0} as {1}")
  @MethodSource("joins")
  void constantOverJoinWithResidual(JoinKind kind, JoinStrategy strategy) {
    strategy.check("SELECT " + strategy.hint(kind.buildSide()) + " 1 AS one FROM join_probe l " + kind.sql()
        + " join_build r ON l.k_int = r.k_int AND l.v < r.v").matchesCpu();
  }

  @Test
  void countWithExists() {
    assertGpuMatchesCpu("SELECT count(*) FROM join_probe l WHERE EXISTS "
        + "(SELECT 1 FROM join_build r WHERE r.k_long = l.k_long AND r.v > 3)", BROADCAST_HASH_JOIN);
  }

  @Test
  void countWithNotExists() {
    assertGpuMatchesCpu("SELECT count(*) FROM join_probe l WHERE NOT EXISTS "
        + "(SELECT 1 FROM join_build r WHERE r.k_date = l.k_date)", BROADCAST_HASH_JOIN);
  }

  @Test
  void countWithInSubquery() {
    assertGpuMatchesCpu("SELECT count(*) FROM join_probe WHERE k_int IN (SELECT k_int FROM join_build WHERE v > 0)",
        BROADCAST_HASH_JOIN);
  }

  @Test
  void selfJoinOfTheIssue() {
    assertGpuMatchesCpu("SELECT count(*) FROM join_probe p1 JOIN join_probe p2 ON p1.k_str = p2.k_str "
        + "WHERE p1.hot = 7 AND p2.v > 2", BROADCAST_HASH_JOIN, FILTER);
  }
}
