package io.sparkwarp.parquet;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Which writers' DELTA_BYTE_ARRAY pages keep the scan on Spark's reader: parquet-mr before 1.8 carried a value's
 * prefix over a page boundary (PARQUET-246), which the device, decoding each page alone, would misread.
 */
class ScanSupportTest {
  @Test
  void oldParquetMrCarriesDeltaPrefixesOverPages() {
    assertTrue(ScanSupport.deltaPrefixesCrossPages("parquet-mr version 1.7.0 (build 8ab3fa)"));
    assertTrue(ScanSupport.deltaPrefixesCrossPages("parquet-mr version 1.6.0"));
  }

  @Test
  void currentWritersDecodePageByPage() {
    assertFalse(ScanSupport.deltaPrefixesCrossPages("parquet-mr version 1.16.0 (build 0123456789abcdef)"));
    assertFalse(ScanSupport.deltaPrefixesCrossPages("parquet-cpp-arrow version 17.0.0"));
  }
}
