package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.GPU_TO_HOST;
import static io.sparkwarp.it.harness.GpuNodes.ONTO_GPU;
import static io.sparkwarp.it.harness.GpuNodes.PROJECT;
import static org.apache.spark.sql.functions.col;

import io.sparkwarp.it.harness.GpuTestBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Inputs at the edges: no rows, only nulls, filters that keep nothing or everything, rows rather than columnar
 * batches coming in, and a query built with the Dataset API.
 */
class EdgeInputTest extends GpuTestBase {
  /** Expressions that cannot raise ANSI errors, over a table and a filter. */
  private static final String PROJECTION = "SELECT id, skew + 1, str_a = str_b, COALESCE(dec_a, dec_b), "
      + "NOT bool_a, double_a * 2, dec7_a - dec7_b, date_a < ts_b FROM %s WHERE %s";

  @ParameterizedTest
  @ValueSource(strings = {"empty_types", "all_null_types"})
  void filterAndProjectOverNoValues(String table) {
    assertGpuMatchesCpu(String.format(PROJECTION, table, "id IS NULL OR int_a > 0"),
        FILTER, PROJECT, ONTO_GPU, GPU_TO_HOST);
  }

  @ParameterizedTest
  @ValueSource(strings = {"str_a = 'no such value'", "id >= 0", "int_a > 2147483647 OR id < 0"})
  void filtersKeepingNothingOrEverything(String predicate) {
    assertGpuMatchesCpu(String.format(PROJECTION, "all_types", predicate), FILTER, PROJECT, ONTO_GPU, GPU_TO_HOST);
  }

  @Test
  void rowsComingInRatherThanColumnarBatches() {
    assertGpuMatchesCpu(String.format(PROJECTION, "all_types_rows", "str_a <> str_b OR float_a > 0"),
        FILTER, PROJECT, ONTO_GPU, GPU_TO_HOST);
  }

  @Test
  void aDatasetApiQuery() {
    assertGpuMatchesCpu(spark -> spark.table("all_types")
            .where(col("int_a").gt(col("int_b")).and(col("str_a").isNotNull()))
            .select(col("id"), col("double_a").multiply(2), col("str_a").equalTo(col("str_b"))),
        FILTER, PROJECT, ONTO_GPU, GPU_TO_HOST);
  }
}
