package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.GPU_TO_HOST;
import static io.sparkwarp.it.harness.GpuNodes.ONTO_GPU;
import static io.sparkwarp.it.harness.GpuNodes.PROJECT;

import io.sparkwarp.it.harness.GpuTestBase;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Casts among the numeric types, decimals, dates and timestamps: truncation, wrapping, NaN and infinities, and
 * overflow to null with ANSI off; the same errors as the CPU with ANSI on.
 */
class CastTest extends GpuTestBase {
  private static final String ANSI = "spark.sql.ansi.enabled";

  @ParameterizedTest
  @ValueSource(strings = {
      "CAST(int_a AS BIGINT), CAST(long_a AS INT), CAST(int_a AS SMALLINT), CAST(short_a AS TINYINT), "
          + "CAST(byte_a AS INT), CAST(bool_a AS INT), CAST(int_a AS BOOLEAN), CAST(long_a AS BOOLEAN)",
      "CAST(int_a AS DOUBLE), CAST(long_a AS FLOAT), CAST(long_a AS DOUBLE), CAST(float_a AS DOUBLE), "
          + "CAST(double_a AS FLOAT), CAST(double_a AS INT), CAST(double_a AS BIGINT), CAST(float_a AS SMALLINT)",
      "CAST(int_a AS DECIMAL(18,4)), CAST(long_a AS DECIMAL(10,0)), CAST(dec7_a AS DOUBLE), CAST(dec_a AS BIGINT), "
          + "CAST(dec_a AS DECIMAL(7,2)), CAST(dec7_a AS DECIMAL(18,4))",
      "CAST(date_a AS TIMESTAMP), CAST(ts_a AS DATE), CAST(date_a AS TIMESTAMP) < ts_b"})
  void withAnsiOff(String casts) {
    query("SELECT id, " + casts + " FROM all_types")
        .conf(ANSI, "false").gpuNodes(PROJECT, ONTO_GPU, GPU_TO_HOST).matchesCpu();
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "CAST(byte_a AS BIGINT), CAST(short_a AS INT), CAST(int_a AS DOUBLE), CAST(float_a AS DOUBLE), "
          + "CAST(dec7_a AS DECIMAL(18,4)), CAST(int_a AS DECIMAL(12,1)), CAST(date_a AS TIMESTAMP), "
          + "CAST(ts_a AS DATE)"})
  void widening(String casts) {
    query("SELECT id, " + casts + " FROM all_types")
        .conf(ANSI, "true").gpuNodes(PROJECT, ONTO_GPU, GPU_TO_HOST).matchesCpu();
  }

  @ParameterizedTest(name = "{0} raises {1}")
  @CsvSource(delimiter = '|', value = {
      "CAST(long_a AS INT)            | CAST_OVERFLOW",
      "CAST(int_a AS TINYINT)         | CAST_OVERFLOW",
      "CAST(double_a AS BIGINT)       | CAST_OVERFLOW",
      "CAST(dec_a AS DECIMAL(7,2))    | NUMERIC_VALUE_OUT_OF_RANGE.WITH_SUGGESTION"})
  void withAnsiOnErrorsMatchTheCpu(String cast, String condition) {
    query("SELECT id, " + cast + " FROM all_types")
        .conf(ANSI, "true").gpuNodes(PROJECT, ONTO_GPU, GPU_TO_HOST).failsLikeCpu(condition);
  }
}
