package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.GPU_TO_HOST;
import static io.sparkwarp.it.harness.GpuNodes.PARQUET_SCAN;
import static io.sparkwarp.it.harness.GpuNodes.PROJECT;

import io.sparkwarp.it.harness.GpuTestBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Dates against timestamps (Spark widens the date), and ranges over the calendar's edges: year 1, the
 * Julian-Gregorian cutover, the epoch and the microsecond before it.
 */
class DateTimeTest extends GpuTestBase {
  @Test
  void mixedComparisonsInAProjection() {
    assertGpuMatchesCpu("""
        SELECT id, date_a < ts_b, date_a = CAST(ts_a AS DATE), ts_a >= date_b,
               date_a BETWEEN DATE '1582-10-04' AND DATE '1582-10-15'
        FROM all_types""", PROJECT, PARQUET_SCAN, GPU_TO_HOST);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "date_a < ts_a",
      "date_a = DATE '2020-01-03' OR ts_a < TIMESTAMP '1970-01-01 00:00:00'",
      "date_a BETWEEN DATE '0001-01-01' AND DATE '1582-10-15'",
      "ts_a > CAST(date_b AS TIMESTAMP) AND ts_a <= TIMESTAMP '2020-01-01 05:00:00'",
      "ts_a = TIMESTAMP '1969-12-31 23:59:59.999999' OR date_b >= DATE '9999-12-31'"})
  void filter(String predicate) {
    assertGpuMatchesCpu("SELECT * FROM all_types WHERE " + predicate, FILTER, PARQUET_SCAN, GPU_TO_HOST);
  }
}
