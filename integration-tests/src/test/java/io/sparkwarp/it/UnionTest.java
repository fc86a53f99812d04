package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.BROADCAST_HASH_JOIN;
import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.UNION;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.it.harness.GpuTestBase;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.junit.jupiter.api.Test;

/**
 * UNION ALL between GPU operators stays on the device: no download for the operator above to upload again (before
 * GpuUnionExec, Spark's UnionExec passed the downloaded Arrow batches, nulls included, straight to the next upload).
 */
class UnionTest extends GpuTestBase {
  private static final String UNION_OF_FILTERS = "(SELECT id, int_a, str_a, dec_a FROM all_types WHERE int_a > 0 "
      + "UNION ALL SELECT id, int_b, str_b, dec_b FROM all_types WHERE str_b LIKE '%a%' "
      + "UNION ALL SELECT id, int_a, str_a, dec_a FROM all_null_types WHERE id IS NULL OR int_a IS NULL) u";

  @Test
  void filterAboveUnionOfFilters() {
    String sql = "SELECT u.* FROM " + UNION_OF_FILTERS + " WHERE u.id % 3 <> 1";
    assertGpuMatchesCpu(sql, UNION, FILTER);
    assertNoRoundTrip(sql);
  }

  @Test
  void joinAboveUnionOfFilters() {
    String sql = "SELECT /*+ BROADCAST(b) */ u.id, u.str_a, b.skew FROM " + UNION_OF_FILTERS
        + " JOIN all_types b ON u.int_a = b.int_b";
    assertGpuMatchesCpu(sql, UNION, BROADCAST_HASH_JOIN);
    assertNoRoundTrip(sql);
  }

  @Test
  void countOfUnion() {
    assertGpuMatchesCpu("SELECT count(*) FROM " + UNION_OF_FILTERS, UNION, FILTER);
  }

  @Test
  void unionOfCpuInputsStaysOnTheCpu() {
    assertFallsBack("SELECT id, levenshtein(str_a, 'x') FROM all_types UNION ALL "
        + "SELECT id, levenshtein(str_b, 'y') FROM all_types", "UnionExec", "no input is on the GPU");
  }

  private static void assertNoRoundTrip(String sql) {
    Dataset<Row> query = spark().sql(sql);
    query.collectAsList();
    List<String> roundTrips = PlanNodes.roundTrips(query.queryExecution().executedPlan());
    assertEquals(List.of(), roundTrips, query.queryExecution().executedPlan().treeString());
  }
}
