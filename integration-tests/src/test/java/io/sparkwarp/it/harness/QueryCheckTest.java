package io.sparkwarp.it.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * The check runner end to end, on queries whose asserted nodes are Spark's (RangeExec stays on the CPU), so it
 * behaves the same with or without the plugin on the classpath.
 */
class QueryCheckTest {
  private static final String RANGE_FILTER = "SELECT id FROM range(100) WHERE id % 7 = 3";

  @Test
  void passesWhenAnswersMatchAndTheNodesArePresent() {
    QueryCheck.sql(RANGE_FILTER).gpuNodes("RangeExec").matchesCpu();
  }

  @Test
  void namesTheMissingNodeAndTheAdaptiveMode() {
    AssertionFailedError e = assertThrows(AssertionFailedError.class,
        () -> QueryCheck.sql(RANGE_FILTER).gpuNodes("RangeExec", "NoSuchExec").matchesCpu());
    assertTrue(e.getMessage().contains("the GPU plan lacks [NoSuchExec]"), e.getMessage());
    assertTrue(e.getMessage().contains("[adaptive execution on]"), e.getMessage());
  }

  @Test
  void namesTheNodeMissingFromTheCpuPlan() {
    QueryCheck.sql(RANGE_FILTER).cpuNodes("RangeExec", "FilterExec").gpuNodes("RangeExec").matchesCpu();
    AssertionFailedError e = assertThrows(AssertionFailedError.class,
        () -> QueryCheck.sql(RANGE_FILTER).cpuNodes("SortMergeJoinExec").gpuNodes("RangeExec").matchesCpu());
    assertTrue(e.getMessage().contains("the CPU plan lacks [SortMergeJoinExec]"), e.getMessage());
  }

  @Test
  void catchesDifferentAnswers() {
    // rand() differs between the two runs, as a wrong GPU answer would
    AssertionFailedError e = assertThrows(AssertionFailedError.class,
        () -> QueryCheck.sql("SELECT id, rand() FROM range(5)").gpuNodes("RangeExec").matchesCpu());
    assertTrue(e.getMessage().contains("row 0 differs"), e.getMessage());
  }

  @Test
  void runsInTheAskedModesAndRestoresTheSessionSettings() {
    SparkSession spark = SharedSpark.get();
    String ansiBefore = spark.conf().get("spark.sql.ansi.enabled");
    String adaptiveBefore = spark.conf().get(QueryCheck.ADAPTIVE);
    AssertionFailedError e = assertThrows(AssertionFailedError.class, () -> QueryCheck.sql(RANGE_FILTER)
        .conf("spark.sql.ansi.enabled", "false").adaptive(QueryCheck.Adaptive.OFF).gpuNodes("NoSuchExec")
        .matchesCpu());
    assertTrue(e.getMessage().contains("[adaptive execution off]"), e.getMessage());
    assertEquals(ansiBefore, spark.conf().get("spark.sql.ansi.enabled"));
    assertEquals(adaptiveBefore, spark.conf().get(QueryCheck.ADAPTIVE));
    assertTrue(spark.conf().getOption(QueryCheck.ENABLED).isEmpty() || "true".equals(spark.conf().get(QueryCheck.ENABLED)),
        "the rewrite is back to its default");
  }

  @Test
  void errorsMustMatchInClassAndCondition() {
    QueryCheck divideByZero = QueryCheck.sql("SELECT 1 / (id - id) FROM range(3)")
        .conf("spark.sql.ansi.enabled", "true").gpuNodes("RangeExec");
    divideByZero.failsLikeCpu("DIVIDE_BY_ZERO");
    AssertionFailedError wrong = assertThrows(AssertionFailedError.class,
        () -> divideByZero.failsLikeCpu("ARITHMETIC_OVERFLOW"));
    assertTrue(wrong.getMessage().contains("DIVIDE_BY_ZERO"), wrong.getMessage());
    AssertionFailedError none = assertThrows(AssertionFailedError.class,
        () -> QueryCheck.sql(RANGE_FILTER).gpuNodes("RangeExec").failsLikeCpu("DIVIDE_BY_ZERO"));
    assertTrue(none.getMessage().contains("the CPU run should fail"), none.getMessage());
  }

  @Test
  void aFallbackNeedsALoggedReason() {
    // with no plugin nothing is logged; with it, this filter runs on the GPU: either way it did not fall back
    assertThrows(AssertionFailedError.class,
        () -> QueryCheck.sql(RANGE_FILTER).fallsBack("FilterExec", "some reason"));
  }

  @Test
  void rejectsChecksThatWouldPassVacuously() {
    assertThrows(IllegalStateException.class, () -> QueryCheck.sql(RANGE_FILTER).matchesCpu());
    assertThrows(IllegalArgumentException.class, () -> QueryCheck.sql(RANGE_FILTER).floatSumTolerance(0));
  }
}
