package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.GPU_TO_HOST;
import static io.sparkwarp.it.harness.GpuNodes.ONTO_GPU;
import static io.sparkwarp.it.harness.GpuNodes.PROJECT;

import io.sparkwarp.it.harness.GpuTestBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * + - * / DIV % and negation on integral, floating-point and decimal columns: wrapping and nulls with ANSI off,
 * the same errors as the CPU with ANSI on (Spark 4's default). The generators put extremes, zeros and -1 in every
 * integral column, so overflow and division by zero occur.
 */
class ArithmeticTest extends GpuTestBase {
  private static final String ANSI = "spark.sql.ansi.enabled";

  @ParameterizedTest
  @ValueSource(strings = {"byte", "short", "int", "long", "dec7"})
  void integralAndDecimalWithAnsiOff(String type) {
    query(String.format("""
        SELECT id, %1$s_a + %1$s_b, %1$s_a - %1$s_b, %1$s_a * %1$s_b, %1$s_a / %1$s_b, %1$s_a DIV %1$s_b,
               %1$s_a %% %1$s_b, -%1$s_a
        FROM all_types""", type))
        .conf(ANSI, "false").gpuNodes(PROJECT, ONTO_GPU, GPU_TO_HOST).matchesCpu();
  }

  @ParameterizedTest
  @ValueSource(strings = {"float", "double"})
  void floatingPointWithAnsiOff(String type) {
    query(String.format("""
        SELECT id, %1$s_a + %1$s_b, %1$s_a - %1$s_b, %1$s_a * %1$s_b, %1$s_a / %1$s_b, %1$s_a %% %1$s_b, -%1$s_a
        FROM all_types""", type))
        .conf(ANSI, "false").gpuNodes(PROJECT, ONTO_GPU, GPU_TO_HOST).matchesCpu();
  }

  @Test
  void mixedTypesWidenAsSparkDoes() {
    query("""
        SELECT id, byte_a + int_b, short_a * long_b, int_a - double_b, float_a * double_b, long_a / float_b,
               dec7_a + int_b, dec7_a * 3, dec7_a - byte_b
        FROM all_types""")
        .conf(ANSI, "false").gpuNodes(PROJECT, ONTO_GPU, GPU_TO_HOST).matchesCpu();
  }

  @Test
  void withAnsiOnArithmeticThatCannotFailMatches() {
    query("SELECT id, int_a DIV 7, int_a % 7, skew * 1000, dec7_a * dec7_b, dec7_a - dec7_b, double_a * 2 "
        + "FROM all_types")
        .conf(ANSI, "true").gpuNodes(PROJECT, ONTO_GPU, GPU_TO_HOST).matchesCpu();
  }

  @ParameterizedTest(name = "{0} raises {1}")
  @CsvSource(delimiter = '|', value = {
      "int_a * 2                    | ARITHMETIC_OVERFLOW",
      "long_a + long_b              | ARITHMETIC_OVERFLOW",
      "byte_a - byte_b              | BINARY_ARITHMETIC_OVERFLOW",
      "-short_a                     | ARITHMETIC_OVERFLOW",
      "int_a DIV (skew - skew)      | DIVIDE_BY_ZERO",
      "long_a % (skew - skew)       | REMAINDER_BY_ZERO",
      "int_a / (skew - skew)        | DIVIDE_BY_ZERO",
      "dec7_a / (dec7_b - dec7_b)   | DIVIDE_BY_ZERO"})
  void withAnsiOnErrorsMatchTheCpu(String expression, String condition) {
    query("SELECT id, " + expression + " FROM all_types")
        .conf(ANSI, "true").gpuNodes(PROJECT, ONTO_GPU, GPU_TO_HOST).failsLikeCpu(condition);
  }
}
