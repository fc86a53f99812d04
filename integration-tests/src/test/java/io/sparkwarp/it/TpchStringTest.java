package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.PROJECT;

import io.sparkwarp.examples.DemoQueries;
import io.sparkwarp.it.data.TpchViews;
import io.sparkwarp.it.harness.GpuTestBase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** TPC-H's string predicates and the queries built on them, over snappy Parquet at a small scale factor. */
class TpchStringTest extends GpuTestBase {
  @BeforeAll
  static void registerTpch() {
    TpchViews.register(spark());
  }

  @ParameterizedTest(name = "{0} WHERE {1}")
  @CsvSource(delimiter = ';', value = {
      "part     ; p_name LIKE '%green%'",
      "orders   ; o_comment NOT LIKE '%special%requests%'",
      "supplier ; s_comment LIKE '%Customer%Complaints%'",
      "part     ; p_type LIKE 'PROMO%'",
      "part     ; p_type NOT LIKE 'MEDIUM POLISHED%'",
      "part     ; p_name LIKE 'forest%'",
      "part     ; p_type LIKE '%BRASS'",
      "lineitem ; l_comment RLIKE '(furious|sly|careful)ly (final|ironic) (deposits|packages)'",
      "lineitem ; l_comment LIKE '%quick%' OR l_comment LIKE '%slyly%' OR l_comment LIKE '%blithe%'"})
  void tpchPredicate(String table, String predicate) {
    assertGpuMatchesCpu("SELECT * FROM " + table + " WHERE " + predicate, FILTER);
  }

  @ParameterizedTest
  @ValueSource(strings = {"Q13", "Q14", "Q16", "Q20", "Q9", "COMMENT_REGEX"})
  void tpchQuery(String name) {
    DemoQueries.DemoQuery q = DemoQueries.named(name).get(0);
    // Q14's LIKE sits in a CASE of an aggregate's input: a projection; the others filter
    assertGpuMatchesCpu(q.sql(), name.equals("Q14") ? PROJECT : FILTER);
  }
}
