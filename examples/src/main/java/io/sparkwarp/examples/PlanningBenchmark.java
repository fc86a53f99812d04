package io.sparkwarp.examples;

import io.sparkwarp.examples.DemoQueries.DemoQuery;
import io.sparkwarp.examples.tpch.TpchTables;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;

/**
 * What the plugin adds to Spark's planning, which every query pays on the driver before a task runs: each TPC-H
 * query planned (parsed, analysed, optimised, made physical and prepared) with the plugin off and on, N times a side
 * after two untimed plans, medians printed. With adaptive execution on, the plugin's rewrite of each query stage
 * happens as the stage is made during execution, so only its judgement of the broadcasts counts here; with {@code
 * spark.sql.adaptive.enabled=false} the whole rewrite does. Nothing is executed, so any backend gives the same
 * figure; the host backend needs no GPU.
 *
 * <p>Arguments, all optional, in order: scale factor (1), data directory (./tpch-data), backend (host), repetitions
 * (15), queries (all, or Q1,Q11,...).
 */
public final class PlanningBenchmark {
  /** Untimed plans a side first: the JIT, and the footers the plugin's scan check reads once. */
  static final int WARM_UPS = 2;

  /** One query's median planning times, plugin off and on. */
  public record QueryPlanning(String name, double offMillis, double onMillis) {}

  private PlanningBenchmark() {}

  public static void main(String[] argv) {
    TpchBenchmark.Args args = ExampleSession.argsOrExit(a -> TpchBenchmark.Args.parse(
        a.length > 0 ? a[0] : "1", a.length > 1 ? a[1] : "tpch-data", a.length > 2 ? a[2] : "host",
        a.length > 3 ? a[3] : "15", a.length > 4 ? a[4] : "all"), argv);
    SparkSession spark = ExampleSession.start("sparkwarp planning benchmark", args.backend(),
        Map.of("spark.warp.explain", "NONE"));
    try {
      run(spark, args, System.out);
    } finally {
      spark.stop();
    }
  }

  /** Prepares the tables, plans every query on both sides and prints the table; returns the medians. */
  public static List<QueryPlanning> run(SparkSession spark, TpchBenchmark.Args args, PrintStream out) {
    TpchTables.writeAndRegister(spark, args.scaleFactor(), args.tablesDir(), args.codec());
    out.printf("TPC-H SF %s planning, plugin %s; per side %d untimed, median of %d%n", args.scaleFactor(),
        PluginStatus.active(spark) ? "active" : "INACTIVE", WARM_UPS, args.repetitions());
    out.printf("%-6s %10s %10s %10s%n", "query", "off ms", "on ms", "added ms");
    List<QueryPlanning> results = new ArrayList<>();
    String before = spark.conf().get(CpuGpuRun.ENABLED, "true");
    try {
      for (DemoQuery query : args.queries()) {
        double off = medianMillis(spark, query, false, args.repetitions());
        double on = medianMillis(spark, query, true, args.repetitions());
        results.add(new QueryPlanning(query.name(), off, on));
        out.printf("%-6s %10.1f %10.1f %10.1f%n", query.name().split(" ")[0], off, on, on - off);
      }
    } finally {
      spark.conf().set(CpuGpuRun.ENABLED, before);
    }
    double off = results.stream().mapToDouble(QueryPlanning::offMillis).sum();
    double on = results.stream().mapToDouble(QueryPlanning::onMillis).sum();
    out.printf("all %d: off %.1f ms, on %.1f ms, added %.1f ms (%.0f%%)%n", results.size(), off, on, on - off,
        100 * (on - off) / off);
    return results;
  }

  private static double medianMillis(SparkSession spark, DemoQuery query, boolean plugin, int repetitions) {
    spark.conf().set(CpuGpuRun.ENABLED, Boolean.toString(plugin));
    List<Long> nanos = new ArrayList<>();
    for (int i = 0; i < WARM_UPS + repetitions; i++) {
      long start = System.nanoTime();
      spark.sql(query.sql()).queryExecution().executedPlan();
      if (i >= WARM_UPS) nanos.add(System.nanoTime() - start);
    }
    return CpuGpuRun.median(nanos) / 1e6;
  }
}
