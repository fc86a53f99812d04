package io.sparkwarp.it.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/** The comparison rules of {@link Answers}. */
class AnswersTest {
  private static Optional<String> exact(List<Row> cpu, List<Row> gpu) {
    return Answers.difference(cpu, gpu, false, 0);
  }

  private static List<Row> rows(Object... firstColumn) {
    return java.util.Arrays.stream(firstColumn).map(v -> RowFactory.create(v, "x")).toList();
  }

  @Test
  void unorderedAnswersMatchInAnyOrderAsMultisets() {
    assertEquals(Optional.empty(), exact(rows(1, 2, 2, null), rows(2, null, 1, 2)));
    String missing = exact(rows(1, 2, 2), rows(1, 2)).orElseThrow();
    assertTrue(missing.contains("CPU has 3 rows, GPU 2"), missing);
    assertTrue(exact(rows(1, 2, 2), rows(1, 1, 2)).isPresent(), "the same values in other counts differ");
  }

  @Test
  void aChangedValueIsReportedWithBothRows() {
    String difference = exact(rows(1, 2, 3), rows(1, 2, 4)).orElseThrow();
    assertTrue(difference.contains("CPU [3, 'x']") && difference.contains("GPU [4, 'x']"), difference);
  }

  @Test
  void orderedAnswersMustMatchInOrder() {
    assertTrue(Answers.difference(rows(1, 2), rows(2, 1), true, 0).isPresent());
    assertEquals(Optional.empty(), Answers.difference(rows(1, 2), rows(2, 1), false, 0));
  }

  @Test
  void floatingPointIsExactWithNanEqualToNanAndNegativeZeroApart() {
    assertEquals(Optional.empty(), exact(rows(Double.NaN, 1.0), rows(1.0, Double.NaN)));
    assertEquals(Optional.empty(), exact(rows(Float.NaN), rows(Float.NaN)));
    assertEquals(Optional.empty(), exact(rows(Double.longBitsToDouble(0x7ff8000000000123L)), rows(Double.NaN)));
    assertTrue(exact(rows(-0.0), rows(0.0)).isPresent());
    assertTrue(exact(rows(-0.0f), rows(0.0f)).isPresent());
    assertTrue(exact(rows(1.0), rows(Math.nextUp(1.0))).isPresent());
    assertTrue(exact(rows(1.0f), rows(1.0)).isPresent(), "a float is not a double");
  }

  @Test
  void theToleranceForFloatSumsIsRelativeAndOptIn() {
    List<Row> cpu = rows(1e20, 0.0, Double.NaN, Double.POSITIVE_INFINITY);
    List<Row> gpu = rows(1e20 * (1 + 1e-12), -0.0, Double.NaN, Double.POSITIVE_INFINITY);
    assertTrue(exact(cpu, gpu).isPresent());
    assertEquals(Optional.empty(), Answers.difference(cpu, gpu, false, 1e-9));
    assertTrue(Answers.difference(rows(1.0), rows(1.1), false, 1e-9).isPresent());
    assertTrue(Answers.difference(rows(Double.NaN), rows(1.0), false, 0.5).isPresent());
    assertTrue(Answers.difference(rows(Double.MAX_VALUE), rows(Double.POSITIVE_INFINITY), false, 0.5).isPresent());
  }

  @Test
  void decimalsKeepTheirScaleAndBinariesCompareByContent() {
    assertTrue(exact(rows(new BigDecimal("1.0")), rows(new BigDecimal("1.00"))).isPresent());
    assertEquals(Optional.empty(), exact(rows(new byte[] {1, 2}), rows(new byte[] {1, 2})));
    assertTrue(exact(rows(new byte[] {1, 2}), rows(new byte[] {1, 3})).isPresent());
    assertTrue(exact(rows(1), rows(1L)).isPresent(), "an int is not a long");
  }

  @Test
  void nestedValuesFollowTheSameRules() {
    SparkSession spark = SharedSpark.get();
    String nested = "SELECT array(CAST('NaN' AS DOUBLE), %s) AS a, map('k', %s) AS m, named_struct('f', X'00') AS s";
    List<Row> nanAndZero = spark.sql(String.format(nested, "0.0D", "0.0D")).collectAsList();
    assertEquals(Optional.empty(), exact(nanAndZero, spark.sql(String.format(nested, "0.0D", "0.0D")).collectAsList()));
    assertTrue(exact(nanAndZero, spark.sql(String.format(nested, "-0.0D", "0.0D")).collectAsList()).isPresent());
    assertTrue(exact(nanAndZero, spark.sql(String.format(nested, "0.0D", "-0.0D")).collectAsList()).isPresent());
  }

  @Test
  void onlyATopLevelOrderByMakesOrderPartOfTheAnswer() {
    SparkSession spark = SharedSpark.get();
    assertTrue(isOrdered(spark, "SELECT id FROM range(10) ORDER BY id DESC"));
    assertTrue(isOrdered(spark, "SELECT id + 1 AS x FROM range(10) ORDER BY id LIMIT 3"));
    assertTrue(Answers.isOrdered(spark.range(10).orderBy("id").selectExpr("id * 2").queryExecution().analyzed()));
    assertFalse(isOrdered(spark, "SELECT id FROM range(10)"));
    assertFalse(isOrdered(spark, "SELECT * FROM (SELECT id FROM range(10) ORDER BY id) WHERE id > 2"));
    assertFalse(isOrdered(spark, "SELECT id FROM range(10) SORT BY id"), "SORT BY orders within partitions only");
  }

  private static boolean isOrdered(SparkSession spark, String sql) {
    return Answers.isOrdered(spark.sql(sql).queryExecution().analyzed());
  }
}
