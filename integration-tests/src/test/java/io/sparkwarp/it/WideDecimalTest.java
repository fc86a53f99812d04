package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.HASH_AGGREGATE;
import static io.sparkwarp.it.harness.GpuNodes.PROJECT;

import io.sparkwarp.it.harness.GpuTestBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Decimals of 19 to 38 digits in expressions on the GPU: products of two decimals of up to 18 digits (TPC-H's
 * {@code l_extendedprice * (1 - l_discount)}), sums and differences of such products (Q9's amount), comparisons with
 * literals and columns (Q18's {@code HAVING sum(l_quantity) > 300}), CASE over them inside an aggregate (Q14),
 * negation and casts, quotients (Q8's market share, Q14's percentage, Q17's {@code sum(..) / 7.0}: Spark's two
 * HALF_UP roundings, division by zero, quotients past 38 digits), with nulls and negative values, in ANSI mode
 * (Spark's default) and out of it.
 */
class WideDecimalTest extends GpuTestBase {
  private static final String ANSI = "spark.sql.ansi.enabled";

  @ParameterizedTest
  @ValueSource(strings = {"true", "false"})
  void productsSumsAndDifferences(String ansi) {
    query("""
        SELECT id, dec_a * dec_b, dec7_a * dec_a, dec_a * dec7_b - dec_b * dec7_a, -(dec7_a * dec_a),
               dec_a * dec_b + dec7_a * dec7_b, dec_a * (1 - dec7_b)
        FROM all_types""").conf(ANSI, ansi).gpuNodes(PROJECT).matchesCpu();
  }

  @ParameterizedTest
  @ValueSource(strings = {"true", "false"})
  void productsOfWideDecimals(String ansi) {
    // wide x narrow (Q20's 0.5 * sum(l_quantity), Q14's 100.00 * sum(..)), wide x wide with an overflow past 38
    // digits (null, or the error under ANSI), and products of 38 digits whose scale Spark lowers by one (rounded
    // HALF_UP: 19 + 19 digits, and 37 + 1)
    query("""
        SELECT skew, 0.5 * sum(dec_a), 100.00 * sum(dec_a * dec7_b), sum(dec_a) * max(dec7_a)
        FROM all_types GROUP BY skew""").conf(ANSI, "false").gpuNodes(HASH_AGGREGATE).matchesCpu();
    query("""
        SELECT id, CAST(dec7_a AS DECIMAL(19, 10)) * CAST(dec7_b AS DECIMAL(19, 10)),
               CAST(dec7_a AS DECIMAL(30, 2)) * dec7_b, (dec_a * dec_b) * CAST(3 AS DECIMAL(1, 0))
        FROM all_types""").conf(ANSI, ansi).gpuNodes(PROJECT).matchesCpu();
    String overflow = "SELECT id, CAST(99999999999999999999.5 AS DECIMAL(22, 1)) * CAST(dec_a AS DECIMAL(20, 4)) "
        + "FROM all_types WHERE dec_a > 10000000";
    // ANSI mode: Spark's error, which shows both 128-bit operands
    if (ansi.equals("false")) query(overflow).conf(ANSI, ansi).gpuNodes(PROJECT).matchesCpu();
    else query(overflow).conf(ANSI, ansi).gpuNodes(PROJECT).failsLikeCpu("NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION");
  }

  @Test
  void productsWhoseRoundingNeedsMoreThan128BitsStayOnTheCpu() {
    // decimal(28,4) x decimal(28,4): Spark keeps scale 6 of 8, rounding a product that may pass 128 bits
    query("SELECT skew, sum(dec_a) * sum(dec_b) FROM all_types GROUP BY skew").conf(ANSI, "false")
        .fallsBack("HashAggregateExec", "MULTIPLY of decimal(28,4) and decimal(28,4) to decimal(38,6)");
  }

  @ParameterizedTest
  @ValueSource(strings = {"true", "false"})
  void comparisons(String ansi) {
    query("""
        SELECT id, dec_a * dec_b > dec7_a * dec_a, dec_a * dec_b <=> dec7_a * dec7_b,
               dec_a * dec_b = CAST(0 AS DECIMAL(37, 8)), dec_a * dec7_b < 12345678901234.5678
        FROM all_types""").conf(ANSI, ansi).gpuNodes(PROJECT).matchesCpu();
    query("SELECT id, dec_a FROM all_types WHERE dec_a * dec_b >= dec7_a * 1000 OR dec_a * dec_b IS NULL")
        .conf(ANSI, ansi).gpuNodes(FILTER).matchesCpu();
  }

  @Test
  void havingOverAWideSum() {
    // sum of decimal(18,4) is decimal(28,4): the filter over the aggregate stays on the GPU
    assertGpuMatchesCpu("SELECT skew, sum(dec_a) AS s FROM all_types GROUP BY skew HAVING sum(dec_a) > 1000",
        HASH_AGGREGATE, FILTER);
    assertGpuMatchesCpu("SELECT skew, sum(dec_a) AS s FROM all_types GROUP BY skew "
        + "HAVING sum(dec_a) BETWEEN -100000000000 AND 100000000000 OR sum(dec_a) IS NULL", HASH_AGGREGATE, FILTER);
  }

  @Test
  void caseOverProductsInAnAggregate() {
    assertGpuMatchesCpu("""
        SELECT skew, sum(CASE WHEN int_a > 0 THEN dec_a * dec7_b ELSE 0 END) AS promo,
               sum(dec_a * dec7_b) AS total
        FROM all_types GROUP BY skew""", HASH_AGGREGATE);
  }

  @ParameterizedTest
  @ValueSource(strings = {"true", "false"})
  void wideningCasts(String ansi) {
    query("""
        SELECT id, CAST(dec_a AS DECIMAL(30, 10)), CAST(int_a AS DECIMAL(25, 3)), CAST(long_a AS DECIMAL(38, 0)),
               CAST(dec_a * dec_b AS DECIMAL(38, 8)), CAST(dec7_a * dec7_b AS DECIMAL(20, 4))
        FROM all_types""").conf(ANSI, ansi).gpuNodes(PROJECT).matchesCpu();
  }

  @Test
  void narrowingCastsOutsideAnsiModeGiveNull() {
    query("SELECT id, CAST(dec_a * dec_b AS DECIMAL(12, 2)), CAST(dec_a * dec_b AS DECIMAL(20, 1)) FROM all_types")
        .conf(ANSI, "false").gpuNodes(PROJECT).matchesCpu();
  }

  @Test
  void allNullInputs() {
    assertGpuMatchesCpu("SELECT id, dec_a * dec_b, dec_a * dec_b > dec7_a * dec_a FROM all_null_types", PROJECT);
  }

  @ParameterizedTest
  @ValueSource(strings = {"true", "false"})
  void quotientsOfWideDecimals(String ansi) {
    // TPC-H's final aggregates: a share of a wide sum (Q8), a percentage (Q14), an average over a literal (Q17)
    query("""
        SELECT skew, sum(CASE WHEN int_a > 0 THEN dec_a * dec7_b ELSE 0 END) / nullif(sum(dec_a * dec7_b), 0),
               100.00 * sum(dec_a) / nullif(sum(dec_b), 0), sum(dec_a) / 7.0
        FROM all_types GROUP BY skew""").conf(ANSI, ansi).gpuNodes(HASH_AGGREGATE).matchesCpu();
    query("""
        SELECT id, (dec_a * dec_b) / 7, (dec_a * dec_b) / nullif(dec7_a, 0), dec_a / nullif(dec_b * dec7_a, 0),
               CAST(dec7_a AS DECIMAL(30, 2)) / nullif(CAST(dec7_b AS DECIMAL(25, 5)), 0)
        FROM all_types""").conf(ANSI, ansi).gpuNodes(PROJECT).matchesCpu();
  }

  @Test
  void wideDivisionByZeroAndQuotientsPast38Digits() {
    String byZero = "SELECT id, (dec_a * dec_b) / CAST(dec7_a * 0 AS DECIMAL(20, 2)) FROM all_types "
        + "WHERE dec_a IS NOT NULL AND dec_b IS NOT NULL AND dec7_a IS NOT NULL";
    query(byZero).conf(ANSI, "false").gpuNodes(PROJECT).matchesCpu();
    query(byZero).conf(ANSI, "true").gpuNodes(PROJECT).failsLikeCpu("DIVIDE_BY_ZERO");
    // decimal(34,1) / decimal(20,10) is decimal(38,6): 10^33 / 0.001 needs 36 integer digits of the 32 there are
    String past38 = "SELECT id, CAST(99999999999999999999999999999999.5 AS DECIMAL(34, 1)) "
        + "/ CAST(0.001 + 0 * dec7_a AS DECIMAL(20, 10)) FROM all_types WHERE dec7_a IS NOT NULL";
    query(past38).conf(ANSI, "false").gpuNodes(PROJECT).matchesCpu();
    query(past38).conf(ANSI, "true").gpuNodes(PROJECT).failsLikeCpu("NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION");
  }

  @Test
  void quotientsWhoseDividendPasses192BitsStayOnTheCpu() {
    // decimal(38,0) / decimal(38,20) is decimal(38,6): the dividend scaled by 10^26 may need 64 digits
    query("SELECT id, CAST(dec_a AS DECIMAL(38, 0)) / CAST(dec_b AS DECIMAL(38, 20)) FROM all_types")
        .conf(ANSI, "false").fallsBack("ProjectExec", "DIVIDE of decimal(38,0) and decimal(38,20)");
  }

  /** Spark negates decimals of more than 34 digits through Scala's BigDecimal, which rounds them: left to Spark. */
  @Test
  void negationsBeyond34DigitsStayOnTheCpu() {
    assertFallsBack("SELECT id, -(dec_a * dec_b) FROM all_types", "ProjectExec", "NEGATE of decimal(37,8)");
  }
}
