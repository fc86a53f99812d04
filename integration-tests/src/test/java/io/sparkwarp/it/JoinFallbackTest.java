package io.sparkwarp.it;

import io.sparkwarp.it.data.JoinTables;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.JoinStrategy;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code NOT IN} over a subquery: Spark plans a null-aware anti join (a null on either side turns the answer to
 * nothing or unknown), which stays on the CPU. Adaptive execution would replace the join by its answer once the
 * subquery shows a null; here it is kept.
 */
class JoinFallbackTest extends GpuTestBase {
  @BeforeAll
  static void registerJoinTables() {
    JoinTables.register(spark());
  }

  @ParameterizedTest
  @ValueSource(strings = {
      // the subquery holds nulls: no row qualifies
      "SELECT id, k_int FROM join_probe WHERE k_int NOT IN (SELECT k_int FROM join_build)",
      // no nulls in the subquery, but the probe's null keys are unknown, so they drop out
      "SELECT id, k_str FROM join_probe WHERE k_str NOT IN (SELECT k_str FROM join_build WHERE k_str IS NOT NULL)"})
  void notInSubqueryStaysOnTheCpu(String sql) {
    query(sql).conf(JoinStrategy.ADAPTIVE_EXCLUDED_RULES, JoinStrategy.PROPAGATE_EMPTY_RELATION)
        .cpuNodes(JoinStrategy.BROADCAST.sparkNode())
        .fallsBack(JoinStrategy.BROADCAST.sparkNode(), "null-aware");
  }
}
