package io.sparkwarp.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.report.BenchmarkResults;
import io.sparkwarp.examples.report.BenchmarkResults.QueryResult;
import io.sparkwarp.examples.report.FullScanResults;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The benchmarks at a tiny scale factor with the plugin on its host backend: table, JSON and plan operators; the
 * TPC-H queries and the full scan share the data.
 */
class TpchBenchmarkTest {
  private static SparkSession spark;

  @TempDir static Path dir;

  @BeforeAll
  static void startSpark() {
    spark = SparkSession.builder().master("local[2]").config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2").config("spark.plugins", PluginStatus.PLUGIN)
        .config("spark.warp.backend", "host").getOrCreate();
  }

  @AfterAll
  static void stopSpark() {
    spark.stop();
  }

  @Test
  void plansEachQueryOnBothSides() {
    TpchBenchmark.Args args = TpchBenchmark.Args.parse("0.002", dir.resolve("data").toString(), "host", "2",
        "Q6,Q3");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    List<PlanningBenchmark.QueryPlanning> results = PlanningBenchmark.run(spark, args,
        new PrintStream(out, true, StandardCharsets.UTF_8));
    String table = out.toString(StandardCharsets.UTF_8);

    assertTrue(table.contains("plugin active; per side 2 untimed, median of 2"), table);
    assertTrue(table.contains("all 2: off "), table);
    assertEquals(List.of("Q6 forecasting revenue change", "Q3 shipping priority"),
        results.stream().map(PlanningBenchmark.QueryPlanning::name).toList());
    for (PlanningBenchmark.QueryPlanning q : results) {
      assertTrue(q.offMillis() > 0 && q.onMillis() > 0, q.toString());
    }
    assertEquals("true", spark.conf().get(CpuGpuRun.ENABLED, "true"), "the plugin's setting left as it was");
  }

  @Test
  void timesEachQueryOnBothSidesAndWritesResultsThatReadBack() {
    // a filter, a three-way join, a join with a prefix LIKE
    TpchBenchmark.Args args = TpchBenchmark.Args.parse("0.002", dir.resolve("data").toString(), "host", "1",
        "Q6,q3,Q14", dir.resolve("out/results.json").toString());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    BenchmarkResults results = TpchBenchmark.run(spark, args, new PrintStream(out, true, StandardCharsets.UTF_8));
    String table = out.toString(StandardCharsets.UTF_8);

    assertTrue(table.contains("plugin active, device host; per side 1 warm-up, 1 timed"), table);
    assertTrue(table.contains("geomean speed-up"), table);
    assertEquals(List.of("Q6 forecasting revenue change", "Q3 shipping priority", "Q14 promotion effect"),
        results.queries().stream().map(QueryResult::name).toList());
    assertTrue(results.allMatched(), table);
    assertTrue(results.pluginActive());
    assertEquals("host", results.device());
    assertEquals(spark.version(), results.sparkVersion());
    for (QueryResult q : results.queries()) {
      assertEquals(1, q.cpuMillis().size(), q.name());
      assertEquals(1, q.gpuMillis().size(), q.name());
      assertEquals(q.cpuMedianMillis() / q.gpuMedianMillis(), q.speedUp(), 1e-9, q.name());
      assertTrue(q.rows() > 0, q.name() + " should find rows at this scale");
      // onto the GPU by its Parquet scan, or by an upload after an exchange or a CPU scan
      assertTrue((q.gpuOperators().contains("GpuParquetScanExec") || q.gpuOperators().contains("HostToGpuExec"))
          && q.gpuOperators().contains("GpuFilterExec"), q.name() + ": " + q.gpuOperators());
      // every operator with a timing metric is timed, and the filter did some work
      assertTrue(q.gpuOperators().containsAll(q.gpuOperatorMillis().keySet()), q.name() + ": " + q.gpuOperatorMillis());
      assertTrue(q.gpuOperatorMillis().values().stream().allMatch(ms -> ms >= 0), q.name() + ": "
          + q.gpuOperatorMillis());
      assertTrue(q.gpuOperatorMillis().getOrDefault("GpuFilterExec", 0.0) > 0, q.name() + ": " + q.gpuOperatorMillis());
      assertTrue(q.gpuTimingMillis().getOrDefault("GpuFilterExec.gpuTime", 0.0) > 0, q.name() + ": "
          + q.gpuTimingMillis());
      if (q.gpuOperators().contains("GpuParquetScanExec")) {
        // the scans' compressed uploads are part of the bytes over PCIe, which also count a download at least
        assertTrue(q.scanBytes() > 0 && q.pcieBytes() > q.scanBytes(), q.name() + ": " + q.gpuSizeBytes());
        // the scan's parts are timed, and they lie within its time
        double parts = q.gpuTimingMillis().get("GpuParquetScanExec.readWaitTime")
            + q.gpuTimingMillis().get("GpuParquetScanExec.deviceWaitTime")
            + q.gpuTimingMillis().get("GpuParquetScanExec.decodeTime");
        assertTrue(q.gpuTimingMillis().get("GpuParquetScanExec.decodeTime") > 0, q.name() + ": " + q.gpuTimingMillis());
        assertTrue(parts <= q.gpuOperatorMillis().get("GpuParquetScanExec") + 1, q.name() + ": " + q.gpuTimingMillis());
      }
    }
    for (QueryResult join : results.queries().subList(1, 3)) {
      assertTrue(join.gpuOperators().stream().anyMatch(op -> op.endsWith("HashJoinExec")),
          join.name() + " joins on the GPU: " + join.gpuOperators());
    }
    double product = results.queries().stream().mapToDouble(QueryResult::speedUp).reduce(1, (a, b) -> a * b);
    assertEquals(Math.cbrt(product), results.geomeanSpeedUp(), 1e-9);

    results.write(args.json().orElseThrow());
    assertEquals(results, BenchmarkResults.read(args.json().orElseThrow()));
  }

  @Test
  void fullScanReadsEveryLineitemColumnOnTheGpuAndUploadsItsChunksOnce() {
    TpchBenchmark.Args args = FullScanBenchmark.parse("0.002", dir.resolve("data").toString(), "host", "1",
        dir.resolve("out/full-scan.json").toString());
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    FullScanResults results = FullScanBenchmark.run(spark, args, new PrintStream(out, true, StandardCharsets.UTF_8));
    String table = out.toString(StandardCharsets.UTF_8);
    QueryResult scan = results.run().queries().get(0);
    assertTrue(results.run().allMatched(), table);
    assertEquals(1, scan.rows());
    assertTrue(scan.gpuOperators().containsAll(List.of("GpuParquetScanExec", "GpuHashAggregateExec")),
        scan.gpuOperators().toString());
    // every column chunk crosses once, as stored
    assertTrue(results.compressedBytes() > 0, table);
    assertEquals(scan.scanBytes(), results.uploadedBytes());
    assertEquals(1.0, results.uploadedPerCompressed(), 0.001, table);
    assertTrue(table.contains("uploaded by the GPU scan"), table);
    assertTrue(table.matches("(?s).*stages of one more run with the plugin:\\n  stage \\d+: \\d+ tasks, "
        + "launched \\+.*"), table);

    results.write(args.json().orElseThrow());
    assertEquals(results, FullScanResults.read(args.json().orElseThrow()));
    for (String[] bad : new String[][] {{"0"}, {"1", "d", "gpu"}, {"1", "d", "host", "0"}, {"1", "d", "host", "1",
        "out.json", "extra"}}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> FullScanBenchmark.parse(bad));
      assertTrue(e.getMessage().startsWith("usage: FullScanBenchmark"), e.getMessage());
    }
  }

  @Test
  void namesQueriesByNumberAndRejectsBadArguments() {
    TpchBenchmark.Args defaults = TpchBenchmark.Args.parse();
    assertEquals(22, defaults.queries().size());
    assertTrue(defaults.queries().get(10).sql().contains("* 0.0001"), "Q11's fraction at SF 1");
    assertTrue(TpchBenchmark.Args.parse("10", "d", "cuda", "3", "Q11").queries().get(0).sql().contains("* 0.00001"));
    // tables of another codec in a folder of their own
    assertEquals(java.nio.file.Path.of("d", "sf10.0-zstd"),
        TpchBenchmark.Args.parse("10", "d", "cuda", "3", "Q1", "o.json", "zstd").tablesDir());
    assertEquals(java.nio.file.Path.of("d", "sf10.0"), FullScanBenchmark.parse("10", "d", "cuda", "3").tablesDir());
    for (String[] bad : new String[][] {{"zero"}, {"0"}, {"1", "d", "gpu"}, {"1", "d", "host", "0"},
        {"1", "d", "host", "1", "Q23"}, {"1", "d", "host", "1", "Q6", "out.json", "extra"}}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TpchBenchmark.Args.parse(bad));
      assertTrue(e.getMessage().startsWith("usage: TpchBenchmark"), e.getMessage());
    }
  }
}
