package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.BROADCAST_HASH_JOIN;
import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.GPU_TO_HOST;
import static io.sparkwarp.it.harness.GpuNodes.HASH_AGGREGATE;
import static io.sparkwarp.it.harness.GpuNodes.ONTO_GPU;
import static io.sparkwarp.it.harness.GpuNodes.PROJECT;

import io.sparkwarp.it.data.TextTables;
import io.sparkwarp.it.harness.GpuTestBase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * substring, substr and left on the GPU as new string columns: in a projection (exact values, nulls included), as
 * a grouping key (TPC-H Q22's country code), compared in a filter, as join keys; over multi-byte UTF-8, empty
 * strings, nulls, short and long strings, with positions from the start, 0, from the end and past either end, and
 * empty, negative and saturating lengths. Arguments that are not literals, and right(), keep the operator on the
 * CPU with the reason.
 */
class SubstringTest extends GpuTestBase {
  @BeforeAll
  static void registerTexts() {
    TextTables.register(spark());
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"substring(s, 1, 2)", "substring(s, 0, 3)", "substring(s, -3, 2)", "substr(s, 3)",
      "substring(s, 2, -1)", "substring(s, -100, 102)", "left(s, 2)", "substring(s, -2147483648, 2147483647)",
      "substring(long_s, -20, 10)", "substring(long_s, 300, 40)"})
  void inAProjection(String substring) {
    assertGpuMatchesCpu("SELECT id, " + substring + " AS sub, s FROM texts", PROJECT, ONTO_GPU, GPU_TO_HOST);
  }

  @Test
  void asAGroupingKeyLikeTpchQ22() {
    assertGpuMatchesCpu("""
        SELECT code, count(*) AS n, sum(id) AS total
        FROM (SELECT substring(s, 1, 2) AS code, id FROM texts WHERE id % 3 <> 0)
        GROUP BY code""", HASH_AGGREGATE, ONTO_GPU);
  }

  @Test
  void comparedInAFilter() {
    // items of other lengths than the substring's: no prefix test, the derived column compared instead
    assertGpuMatchesCpu("SELECT id, s FROM texts WHERE substring(s, 1, 2) IN ('gr', 'g', 'é€', '')", FILTER);
    assertGpuMatchesCpu("SELECT id, s FROM texts WHERE substring(s, -2) = substring(short_s, -2)", FILTER);
  }

  @Test
  void asJoinKeys() {
    assertGpuMatchesCpu("""
        SELECT count(*), sum(a.id + b.id) FROM texts a JOIN texts b ON substring(a.s, 1, 3) = substring(b.short_s, 2)
        WHERE a.id < 400 AND b.id < 400""", BROADCAST_HASH_JOIN);
    // NOT IN: a null-aware anti join, whose stream side drops the rows whose substring key is null
    assertGpuMatchesCpu("""
        SELECT id FROM texts WHERE substring(s, -2) NOT IN (
          SELECT left(short_s, 2) FROM texts WHERE short_s IS NOT NULL AND id < 200)""", BROADCAST_HASH_JOIN);
  }

  @Test
  void unsupportedFormsStayOnTheCpu() {
    assertFallsBack("SELECT id, substring(s, 1, length(short_s)) FROM texts", "ProjectExec", "not an integer literal");
    // right(s, n) is Spark's IF(s IS NULL, NULL, substring(s, -n, n)): a string-valued IF
    assertFallsBack("SELECT id, right(s, 2) FROM texts", "ProjectExec", "string-valued If");
  }
}
