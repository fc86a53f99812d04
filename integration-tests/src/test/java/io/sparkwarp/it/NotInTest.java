package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.BROADCAST_EXCHANGE;
import static io.sparkwarp.it.harness.GpuNodes.BROADCAST_HASH_JOIN;

import io.sparkwarp.it.data.JoinTables;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.JoinStrategy;
import io.sparkwarp.it.harness.QueryCheck.Adaptive;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * NOT IN (subquery): Spark's null-aware anti join, on the GPU. A row stays when the subquery is empty; otherwise
 * only when neither its key nor any key of the subquery is null and its key is not among them. Checked without
 * adaptive execution, which would answer the empty and the null cases at run time itself, leaving no join.
 */
class NotInTest extends GpuTestBase {
  @BeforeAll
  static void registerJoinTables() {
    JoinTables.register(spark());
  }

  @Test
  void subqueryWithoutNulls() {
    check("SELECT id, int_a FROM all_types WHERE int_a NOT IN "
        + "(SELECT int_b FROM all_types WHERE skew = 0 AND int_b IS NOT NULL)");
  }

  @Test
  void aNullInTheSubqueryKeepsNoRow() {
    check("SELECT id, int_a FROM all_types WHERE int_a NOT IN "
        + "(SELECT int_b FROM all_types WHERE skew = 0 OR int_b IS NULL)");
  }

  @Test
  void anEmptySubqueryKeepsEveryRowNullKeysToo() {
    check("SELECT id, int_a FROM all_types WHERE int_a NOT IN (SELECT int_b FROM all_types WHERE skew = 12345)");
  }

  @Test
  void stringAndLongKeys() {
    check("SELECT id, str_a FROM all_types WHERE str_a NOT IN "
        + "(SELECT str_b FROM all_types WHERE skew = 0 AND str_b IS NOT NULL)");
    check("SELECT id, long_a FROM all_types WHERE long_a NOT IN "
        + "(SELECT long_b FROM all_types WHERE skew < 3 AND long_b IS NOT NULL)");
  }

  @Test
  void keyThatIsAnExpression() {
    check("SELECT id, int_a FROM all_types WHERE int_a + 1 NOT IN "
        + "(SELECT int_b FROM all_types WHERE skew = 0 AND int_b IS NOT NULL)");
  }

  /** On the join tables, with adaptive execution on too, its rule that would answer the join itself excluded. */
  @ParameterizedTest
  @ValueSource(strings = {
      // the subquery holds nulls: no row qualifies
      "SELECT id, k_int FROM join_probe WHERE k_int NOT IN (SELECT k_int FROM join_build)",
      // no nulls in the subquery, but the probe's null keys are unknown, so they drop out
      "SELECT id, k_str FROM join_probe WHERE k_str NOT IN (SELECT k_str FROM join_build WHERE k_str IS NOT NULL)"})
  void joinTablesInBothModes(String sql) {
    query(sql).conf(JoinStrategy.ADAPTIVE_EXCLUDED_RULES, JoinStrategy.PROPAGATE_EMPTY_RELATION)
        .gpuNodes(BROADCAST_HASH_JOIN, BROADCAST_EXCHANGE).matchesCpu();
  }

  private static void check(String sql) {
    query(sql).adaptive(Adaptive.OFF).gpuNodes(BROADCAST_HASH_JOIN, BROADCAST_EXCHANGE).matchesCpu();
  }
}
