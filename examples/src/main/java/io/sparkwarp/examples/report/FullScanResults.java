package io.sparkwarp.examples.report;

import java.nio.file.Path;

/**
 * What one run of {@code FullScanBenchmark} measured, as written to and read from JSON: the run of its one query in
 * {@code TpchBenchmark}'s form, and the bytes the scan read.
 *
 * @param run the setting, the timed runs of both sides, the answers' match and the GPU run's metrics
 * @param compressedBytes compressed bytes of lineitem's column chunks, from the files' footers
 * @param uploadedBytes compressed bytes the GPU scan uploaded in the last GPU run
 * @param uploadedPerCompressed uploaded over compressed bytes: 1.0 when the scan uploads the files as stored
 */
public record FullScanResults(BenchmarkResults run, long compressedBytes, long uploadedBytes,
    double uploadedPerCompressed) {
  public void write(Path file) {
    Json.write(this, file);
  }

  public static FullScanResults read(Path file) {
    return Json.read(file, FullScanResults.class);
  }
}
