package io.sparkwarp.examples;

import io.sparkwarp.examples.DemoQueries.DemoQuery;
import io.sparkwarp.examples.tpch.TpchTables;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.spark.sql.SparkSession;

/**
 * The TPC-H demo: generates (or reuses) the tables as snappy Parquet, then runs each demo query with the plugin
 * off and on, printing the GPU run's executed plan, the time of every run and whether the answers matched.
 * Exits 1 when an answer differed, 2 on bad arguments.
 *
 * <p>Arguments, all optional, in order: scale factor (0.1), data directory (./tpch-data), backend
 * (auto|cuda|host, default auto), repetitions (3).
 */
public final class TpchDemo {
  /** The parsed command line. */
  public record Args(double scaleFactor, Path dataDir, String backend, int repetitions, List<DemoQuery> queries) {
    static final String USAGE = "usage: TpchDemo [scale-factor=0.1] [data-dir=./tpch-data] [backend=auto|cuda|host]"
        + " [repetitions=3] [queries=all|Q13,Q14,...]";
    private static final Set<String> BACKENDS = Set.of("auto", "cuda", "host");

    public static Args parse(String... args) {
      if (args.length > 5) throw new IllegalArgumentException(USAGE);
      Args parsed;
      try {
        parsed = new Args(
            args.length > 0 ? Double.parseDouble(args[0]) : 0.1,
            Path.of(args.length > 1 ? args[1] : "tpch-data"),
            args.length > 2 ? args[2] : "auto",
            args.length > 3 ? Integer.parseInt(args[3]) : 3,
            args.length > 4 ? DemoQueries.named(args[4]) : DemoQueries.ALL);
      } catch (IllegalArgumentException e) {  // a bad number, or no such query
        throw new IllegalArgumentException(USAGE + " (" + e.getMessage() + ")", e);
      }
      if (parsed.scaleFactor <= 0 || parsed.repetitions < 1 || !BACKENDS.contains(parsed.backend)) {
        throw new IllegalArgumentException(USAGE);
      }
      return parsed;
    }

    /** Where this scale factor's tables live, so different scale factors never reuse each other's files. */
    public Path tablesDir() {
      return dataDir.resolve("sf" + scaleFactor);
    }
  }

  private TpchDemo() {}

  public static void main(String[] argv) {
    Args args = ExampleSession.argsOrExit(Args::parse, argv);
    SparkSession spark = ExampleSession.start("sparkwarp TPC-H demo", args.backend(), Map.of());
    Configurator.setLevel("io.sparkwarp", Level.INFO);  // the plugin's own log (its explain output) stays
    boolean matched;
    try {
      matched = run(spark, args, System.out);
    } finally {
      spark.stop();
    }
    System.exit(matched ? 0 : 1);
  }

  /** Prepares the tables and runs every demo query; returns whether all answers matched. */
  public static boolean run(SparkSession spark, Args args, PrintStream out) {
    long start = System.nanoTime();
    boolean generated = TpchTables.writeAndRegister(spark, args.scaleFactor(), args.tablesDir());
    out.printf("TPC-H scale factor %s %s %s in %d ms%n", args.scaleFactor(), generated ? "generated into" : "reused from",
        args.tablesDir().toAbsolutePath(), (System.nanoTime() - start) / 1_000_000);
    boolean active = PluginStatus.active(spark);
    if (!active) {
      out.println("sparkwarp is inactive (device " + PluginStatus.device(spark) + "): both runs of each query below"
          + " are Spark's own CPU plans. Pass backend host to run the plugin on its Java reference backend.");
    }
    boolean allMatched = true;
    for (DemoQuery query : args.queries()) {
      CpuGpuRun run = CpuGpuRun.run(spark, query, args.repetitions());
      print(run, active, out);
      allMatched &= run.matched();
    }
    out.println(allMatched ? "all results matched" : "RESULTS DIFFERED");
    return allMatched;
  }

  private static void print(CpuGpuRun run, boolean active, PrintStream out) {
    out.printf("%n== %s (%d rows)%n%s", run.query().name(), run.rows(), run.gpuPlan());
    // an inactive plugin changes no plan: naming the second run "gpu" would mislead
    String format = active ? "run %d: cpu %d ms, gpu %d ms%n" : "run %d: plugin off %d ms, plugin inactive %d ms%n";
    for (int i = 0; i < run.cpuMillis().size(); i++) {
      out.printf(format, i + 1, run.cpuMillis().get(i), run.gpuMillis().get(i));
    }
    out.println(run.matched() ? "results match" : "RESULTS DIFFER");
  }
}
