package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.GPU_TO_HOST;
import static io.sparkwarp.it.harness.GpuNodes.ONTO_GPU;
import static io.sparkwarp.it.harness.GpuNodes.PROJECT;

import io.sparkwarp.it.harness.GpuTestBase;
import org.junit.jupiter.api.Test;

/** COALESCE, CASE WHEN and IF over several types, nested, in filters, and evaluated lazily as Spark does. */
class ConditionalTest extends GpuTestBase {
  @Test
  void coalesce() {
    assertGpuMatchesCpu("""
        SELECT id, COALESCE(int_a, int_b, 0), COALESCE(dec_a, dec_b), COALESCE(double_a, -1.0D),
               COALESCE(date_a, date_b), COALESCE(NULL, ts_a), COALESCE(bool_a, bool_b) OR COALESCE(str_a, str_b) = 'a'
        FROM all_types""", PROJECT, ONTO_GPU, GPU_TO_HOST);
  }

  @Test
  void caseWhen() {
    assertGpuMatchesCpu("""
        SELECT id,
               CASE WHEN int_a > int_b THEN long_a WHEN int_a < int_b THEN long_b ELSE -1 END,
               CASE skew WHEN 7 THEN 70 WHEN 8 THEN 80 END,
               CASE WHEN int_a > 0 THEN str_a ELSE str_b END IN ('a', ''),
               CASE WHEN double_a > 0 THEN double_a ELSE -double_a END,
               CASE WHEN bool_a THEN dec_a WHEN bool_b THEN dec_b END,
               CASE WHEN date_a IS NULL THEN ts_a ELSE CAST(date_a AS TIMESTAMP) END
        FROM all_types""", PROJECT, ONTO_GPU, GPU_TO_HOST);
  }

  @Test
  void ifAndNesting() {
    assertGpuMatchesCpu("""
        SELECT id, IF(bool_a, int_a, int_b), IF(str_a = str_b, ts_a, ts_b), IF(double_a IS NULL, 0.0D, double_a),
               IF(int_a > 0, IF(int_b > 0, 1, 2), COALESCE(skew, 3)), IF(float_a = float_b, NULL, float_a),
               IF(bool_b, bin_a, bin_b) = X'00'
        FROM all_types""", PROJECT, ONTO_GPU, GPU_TO_HOST);
  }

  @Test
  void inFilters() {
    assertGpuMatchesCpu("""
        SELECT * FROM all_types
        WHERE COALESCE(int_a, 0) > 0 AND IF(bool_a, str_a, str_b) <> ''
           OR CASE WHEN skew = 7 THEN double_a > 0 ELSE date_a > DATE '2000-01-01' END""",
        FILTER, ONTO_GPU, GPU_TO_HOST);
  }

  @Test
  void branchesNotTakenRaiseNoAnsiError() {
    // the CPU evaluates only the chosen branch: a GPU evaluating both must not surface their errors
    query("""
        SELECT id, IF(int_b IN (0, -1), NULL, int_a DIV int_b),
               CASE WHEN long_b = 0 THEN -1 ELSE long_a % long_b END,
               COALESCE(int_a, int_a * 2)
        FROM all_types""")
        .conf("spark.sql.ansi.enabled", "true").gpuNodes(PROJECT, ONTO_GPU, GPU_TO_HOST).matchesCpu();
  }
}
