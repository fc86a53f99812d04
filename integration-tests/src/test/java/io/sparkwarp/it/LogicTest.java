package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.GPU_TO_HOST;
import static io.sparkwarp.it.harness.GpuNodes.ONTO_GPU;
import static io.sparkwarp.it.harness.GpuNodes.PROJECT;

import io.sparkwarp.it.harness.GpuTestBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** AND, OR and NOT under SQL's three-valued logic, IN lists holding NULL, and null tests in filters. */
class LogicTest extends GpuTestBase {
  @Test
  void threeValuedLogicInAProjection() {
    assertGpuMatchesCpu("""
        SELECT id, bool_a AND bool_b, bool_a OR bool_b, NOT bool_a, bool_a AND NULL, bool_a OR NULL,
               NOT (bool_a AND bool_b), (int_a > int_b) AND (str_a < str_b), (int_a > int_b) OR (str_a < str_b),
               int_a IN (1, 2, NULL), int_a NOT IN (1, 2, NULL), str_a IN ('a', 'é', '😀', '')
        FROM all_types""", PROJECT, ONTO_GPU, GPU_TO_HOST);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "bool_a AND bool_b",
      "bool_a OR bool_b",
      "NOT bool_a",
      "NOT (int_a > int_b AND str_a <> str_b)",
      "int_a > 0 OR double_a IS NULL",
      "(skew = 7 OR str_a IS NULL) AND NOT (date_a < DATE '2000-01-01')",
      "str_a IS NULL AND dec_a IS NOT NULL",
      "int_a IN (1, 2, NULL)",
      "int_a NOT IN (1, 2, 3) OR int_a IN (4, NULL)",
      "str_a IN ('a', 'é', '€', '😀', '') OR bin_a IN (X'00', X'')"})
  void filter(String predicate) {
    assertGpuMatchesCpu("SELECT * FROM all_types WHERE " + predicate, FILTER, ONTO_GPU, GPU_TO_HOST);
  }
}
