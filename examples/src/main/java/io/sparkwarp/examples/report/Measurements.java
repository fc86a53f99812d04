package io.sparkwarp.examples.report;

import java.nio.file.Path;
import java.util.List;

/**
 * The common schema of kernel microbenchmark results: named values with their unit and, where one applies, the
 * physical limit in the same unit (55 GB/s for pinned PCIe copies, the device-memory bandwidth for scans), so a
 * report can show how close each comes.
 *
 * <pre>{"source": "TransferBenchmark", "device": "NVIDIA H200 ...", "date": "2026-11-21",
 *  "measurements": [{"name": "upload", "value": 55.4, "unit": "GB/s", "limit": 55.5}]}</pre>
 *
 * @param source the benchmark that measured
 * @param device the machine it ran on
 * @param date when
 */
public record Measurements(String source, String device, String date, List<Measurement> measurements) {
  /**
   * One figure.
   *
   * @param limit the physical limit in {@code unit}, or null where none applies
   */
  public record Measurement(String name, double value, String unit, Double limit) {}

  public void write(Path file) {
    Json.write(this, file);
  }

  public static Measurements read(Path file) {
    return Json.read(file, Measurements.class);
  }
}
