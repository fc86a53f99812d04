package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.GPU_TO_HOST;
import static io.sparkwarp.it.harness.GpuNodes.PARQUET_SCAN;
import static io.sparkwarp.it.harness.GpuNodes.PROJECT;

import io.sparkwarp.examples.DemoQueries;
import io.sparkwarp.it.data.TpchViews;
import io.sparkwarp.it.harness.GpuTestBase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Filter-heavy TPC-H queries over snappy Parquet at a small scale factor: several batches per scan. */
class TpchFilterTest extends GpuTestBase {
  @BeforeAll
  static void registerTpch() {
    TpchViews.register(spark());
  }

  @Test
  void q6() {
    assertGpuMatchesCpu(DemoQueries.Q6.sql(), FILTER, PARQUET_SCAN, GPU_TO_HOST);
  }

  @Test
  void stringEqualityAndIn() {
    assertGpuMatchesCpu(DemoQueries.SHIP_MODES.sql(), FILTER, PARQUET_SCAN, GPU_TO_HOST);
  }

  @Test
  void filterAndDecimalProjectionInOrder() {
    // sums and differences of decimal(12,2) stay within 18 digits; products would not
    assertGpuMatchesCpu("""
        SELECT l_orderkey, l_linenumber, l_extendedprice + l_tax, l_discount - l_tax, l_shipdate
        FROM lineitem
        WHERE l_shipmode = 'MAIL' AND l_receiptdate > l_commitdate AND l_quantity BETWEEN 10 AND 20
        ORDER BY l_orderkey, l_linenumber""", FILTER, PROJECT, PARQUET_SCAN, GPU_TO_HOST);
  }
}
