package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.GPU_TO_HOST;
import static io.sparkwarp.it.harness.GpuNodes.HASH_AGGREGATE;
import static io.sparkwarp.it.harness.GpuNodes.PARQUET_SCAN;
import static io.sparkwarp.it.harness.GpuNodes.PROJECT;

import io.sparkwarp.it.harness.GpuTestBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Dates against timestamps (Spark widens the date), and ranges over the calendar's edges: year 1, the
 * Julian-Gregorian cutover, the epoch and the microsecond before it. The fields of a date (year, quarter, month,
 * day), in projections, filters and group keys (TPC-H Q7-Q9 group by year), over the same edges.
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

  @Test
  void fieldsOfDates() {
    assertGpuMatchesCpu("""
        SELECT id, year(date_a), quarter(date_a), month(date_a), day(date_a), dayofmonth(date_b),
               extract(year FROM date_b), year(DATE '1582-10-15'), month(DATE '0001-01-01'), day(DATE '1969-12-31'),
               year(CAST(ts_a AS DATE))
        FROM all_types""", PROJECT, PARQUET_SCAN, GPU_TO_HOST);
  }

  @Test
  void fieldsOfDatesInFiltersAndGroups() {
    assertGpuMatchesCpu("SELECT * FROM all_types WHERE year(date_a) BETWEEN 1582 AND 2000 OR month(date_b) = 2",
        FILTER, PARQUET_SCAN);
    assertGpuMatchesCpu("SELECT year(date_a) AS y, quarter(date_a) AS q, count(*), sum(int_a) FROM all_types "
        + "GROUP BY year(date_a), quarter(date_a)", PARQUET_SCAN, HASH_AGGREGATE);
  }
}
