package io.sparkwarp.examples.report;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What one run of {@code TpchBenchmark} measured, as it is written to and read from JSON: the run's setting, then
 * per query the timed runs of both sides. Everything derived (medians, speed-ups, the geomean) is stored too, so a
 * reader needs no code of ours.
 *
 * @param scaleFactor TPC-H scale factor of the data
 * @param backend spark.warp.backend asked for (auto, cuda, host)
 * @param device what the plugin ran on: the GPU's description, "host", or why nothing
 * @param pluginActive whether the plugin rewrote plans; false: both sides ran Spark's CPU plans
 * @param date when the run started, ISO-8601 UTC
 * @param master the Spark master (local[16], ...)
 * @param sparkVersion the Spark version that ran
 * @param warmUps untimed runs per side before the timed ones
 * @param repetitions timed runs per side
 * @param geomeanSpeedUp geometric mean of the queries' speed-ups
 * @param allMatched whether every query's answers matched
 */
public record BenchmarkResults(double scaleFactor, String backend, String device, boolean pluginActive, String date,
    String master, String sparkVersion, int warmUps, int repetitions, double geomeanSpeedUp, boolean allMatched,
    List<QueryResult> queries) {
  /**
   * One query's runs.
   *
   * @param name the query's name ("Q3 shipping priority")
   * @param cpuMillis wall time of each timed run with the plugin off
   * @param cpuMedianMillis their median
   * @param gpuMillis wall time of each timed run with the plugin on
   * @param gpuMedianMillis their median
   * @param speedUp CPU median over GPU median
   * @param matched whether the answers of the two sides were equal in every run
   * @param rows rows in the answer
   * @param gpuOperators the plugin's operators in the GPU run's executed plan
   * @param gpuOperatorMillis per plugin operator, the task time its timing metrics counted in the last GPU run
   *     (summed over tasks, so it may exceed the wall time); empty in files written before it was measured
   * @param gpuTimingMillis every timing metric of the plugin's operators in the last GPU run, "operator.metric" to
   *     ms summed over tasks (the parts of a scan's time among them); empty in files written before
   * @param gpuSizeBytes every size metric of the plugin's operators in the last GPU run, "operator.metric" to bytes
   *     summed over tasks ("transferBytes" are bytes over PCIe); empty in files written before
   */
  public record QueryResult(String name, List<Long> cpuMillis, double cpuMedianMillis, List<Long> gpuMillis,
      double gpuMedianMillis, double speedUp, boolean matched, int rows, List<String> gpuOperators,
      Map<String, Double> gpuOperatorMillis, Map<String, Double> gpuTimingMillis, Map<String, Long> gpuSizeBytes) {
    public QueryResult {
      gpuOperatorMillis = gpuOperatorMillis == null ? Map.of() : gpuOperatorMillis;
      gpuTimingMillis = gpuTimingMillis == null ? Map.of() : gpuTimingMillis;
      gpuSizeBytes = gpuSizeBytes == null ? Map.of() : gpuSizeBytes;
    }

    /** Bytes over PCIe in the last GPU run: every transfer metric of the plan. */
    public long pcieBytes() {
      return gpuSizeBytes.entrySet().stream().filter(e -> e.getKey().endsWith(".transferBytes"))
          .mapToLong(Map.Entry::getValue).sum();
    }

    /** The compressed Parquet bytes the GPU scans uploaded: the input the stage started from. */
    public long scanBytes() {
      return gpuSizeBytes.getOrDefault("GpuParquetScanExec.transferBytes", 0L);
    }
  }

  /** What makes two runs' figures comparable: parts of one benchmark split over several calls share it. */
  public record Setting(double scaleFactor, String backend, String device, String master, String sparkVersion,
      int warmUps, int repetitions) {}

  public Setting setting() {
    return new Setting(scaleFactor, backend, device, master, sparkVersion, warmUps, repetitions);
  }

  /**
   * One result of runs of the same setting (a benchmark split over calls, as a device's time limit per call may
   * ask): the queries in order, the geomean over all, the first run's date.
   *
   * @throws IllegalArgumentException when the settings differ
   */
  public static BenchmarkResults merge(List<BenchmarkResults> parts) {
    BenchmarkResults first = parts.get(0);
    for (BenchmarkResults part : parts) {
      if (!part.setting().equals(first.setting())) {
        throw new IllegalArgumentException("cannot merge runs of different settings: " + first.setting() + " and "
            + part.setting());
      }
    }
    List<QueryResult> queries = parts.stream().flatMap(p -> p.queries().stream()).toList();
    return new BenchmarkResults(first.scaleFactor(), first.backend(), first.device(),
        parts.stream().allMatch(BenchmarkResults::pluginActive), first.date(), first.master(), first.sparkVersion(),
        first.warmUps(), first.repetitions(), geomean(queries.stream().map(QueryResult::speedUp).toList()),
        parts.stream().allMatch(BenchmarkResults::allMatched), queries);
  }

  /** The geometric mean of the speed-ups; NaN for none. */
  public static double geomean(List<Double> speedUps) {
    return Math.exp(speedUps.stream().mapToDouble(Math::log).average().orElse(Double.NaN));
  }

  public void write(Path file) {
    Json.write(this, file);
  }

  public static BenchmarkResults read(Path file) {
    return Json.read(file, BenchmarkResults.class);
  }
}
