package io.sparkwarp.examples;

import io.sparkwarp.examples.DemoQueries.DemoQuery;
import io.sparkwarp.examples.report.BenchmarkResults;
import io.sparkwarp.examples.report.BenchmarkResults.QueryResult;
import io.sparkwarp.examples.tpch.TpchQueries;
import io.sparkwarp.examples.tpch.TpchTables;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.spark.sql.SparkSession;

/**
 * The end-to-end TPC-H benchmark: each query with the plugin off and on in one session on the same data, one
 * untimed warm-up per side, then the median of N timed runs; answers compared; a table with the geomean speed-up
 * printed and, when asked, the results written as JSON (the input of {@code report.BenchmarkReport}). Exits 1 when an
 * answer differed, 2 on bad arguments.
 *
 * <p>Arguments, all optional, in order: scale factor (1), data directory (./tpch-data), backend (auto|cuda|host,
 * default auto), repetitions (3), queries (all, or Q1,Q11,...), JSON output file.
 */
public final class TpchBenchmark {
  /** Untimed runs per side before the timed ones: JIT, file caches, kernel and broadcast set-up. */
  static final int WARM_UPS = 1;

  /** The parsed command line. */
  public record Args(double scaleFactor, Path dataDir, String backend, int repetitions, List<DemoQuery> queries,
      Optional<Path> json, String codec) {
    static final String USAGE = "usage: TpchBenchmark [scale-factor=1] [data-dir=./tpch-data]"
        + " [backend=auto|cuda|host] [repetitions=3] [queries=all|Q1,Q11,...] [json-output] [codec=snappy|zstd|...]";
    private static final Set<String> BACKENDS = Set.of("auto", "cuda", "host");

    public static Args parse(String... args) {
      if (args.length > 7) throw new IllegalArgumentException(USAGE);
      Args parsed;
      try {
        double scale = args.length > 0 ? Double.parseDouble(args[0]) : 1;
        if (scale <= 0) throw new IllegalArgumentException("the scale factor must be positive");
        parsed = new Args(scale,
            Path.of(args.length > 1 ? args[1] : "tpch-data"),
            args.length > 2 ? args[2] : "auto",
            args.length > 3 ? Integer.parseInt(args[3]) : 3,
            queries(scale, args.length > 4 ? args[4] : "all"),
            args.length > 5 ? Optional.of(Path.of(args[5])) : Optional.empty(),
            args.length > 6 ? args[6] : "snappy");
      } catch (IllegalArgumentException e) {  // a bad number, or no such query
        throw new IllegalArgumentException(USAGE + " (" + e.getMessage() + ")", e);
      }
      if (parsed.repetitions < 1 || !BACKENDS.contains(parsed.backend) || !TpchTables.CODECS.contains(parsed.codec)) {
        throw new IllegalArgumentException(USAGE);
      }
      return parsed;
    }

    /** The TPC-H queries named by number ({@code Q1,Q11}), or all 22; Q11's fraction follows the scale factor. */
    static List<DemoQuery> queries(double scaleFactor, String names) {
      List<DemoQuery> all = TpchQueries.all(scaleFactor);
      if (names.equals("all")) return all;
      List<DemoQuery> chosen = new ArrayList<>();
      for (String name : names.split(",")) {
        String prefix = name.strip().toUpperCase(java.util.Locale.ROOT) + " ";
        chosen.add(all.stream().filter(q -> q.name().startsWith(prefix)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("no TPC-H query " + name)));
      }
      return chosen;
    }

    /**
     * Where this scale factor's tables live: the demo's layout, so the two share generated data (codecs other than
     * Snappy in a folder of their own).
     */
    public Path tablesDir() {
      return dataDir.resolve("sf" + scaleFactor + (codec.equals("snappy") ? "" : "-" + codec));
    }
  }

  private TpchBenchmark() {}

  public static void main(String[] argv) {
    Args args = ExampleSession.argsOrExit(Args::parse, argv);
    ExampleSession.benchmark("sparkwarp TPC-H benchmark", args.backend(), args.json(),
        spark -> run(spark, args, System.out), BenchmarkResults::write, BenchmarkResults::allMatched);
  }

  /** Prepares the tables, runs every query and prints the table; returns the results. */
  public static BenchmarkResults run(SparkSession spark, Args args, PrintStream out) {
    String date = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    boolean generated = TpchTables.writeAndRegister(spark, args.scaleFactor(), args.tablesDir(), args.codec());
    out.printf("TPC-H SF %s (%s) %s %s%n", args.scaleFactor(), args.codec(),
        generated ? "generated into" : "reused from", args.tablesDir().toAbsolutePath());
    boolean active = PluginStatus.active(spark);
    String device = PluginStatus.device(spark);
    out.printf("plugin %s, device %s; per side %d warm-up, %d timed%n", active ? "active" : "INACTIVE",
        device, WARM_UPS, args.repetitions());
    out.printf("%-40s %10s %10s %8s %7s %10s %10s%n", "query", "cpu ms", "gpu ms", "speed-up", "answers",
        "PCIe MB", "scan MB");
    List<QueryResult> queries = new ArrayList<>();
    for (DemoQuery query : args.queries()) {
      CpuGpuRun run = CpuGpuRun.run(spark, query, WARM_UPS, args.repetitions());
      QueryResult result = new QueryResult(query.name(), run.cpuMillis(), run.cpuMedian(), run.gpuMillis(),
          run.gpuMedian(), run.cpuMedian() / run.gpuMedian(), run.matched(), run.rows(),
          run.gpuOperators(), run.gpuOperatorMillis(), run.gpuTimingMillis(), run.gpuSizeBytes());
      out.printf("%-40s %10.0f %10.0f %7.2fx %7s %10.1f %10.1f%n", abbreviate(query.name()), result.cpuMedianMillis(),
          result.gpuMedianMillis(), result.speedUp(), result.matched() ? "match" : "DIFFER", result.pcieBytes() / 1e6,
          result.scanBytes() / 1e6);
      queries.add(result);
    }
    double geomean = BenchmarkResults.geomean(queries.stream().map(QueryResult::speedUp).toList());
    boolean allMatched = queries.stream().allMatch(QueryResult::matched);
    out.printf("geomean speed-up %.2fx over %d queries; %s%n", geomean, queries.size(),
        allMatched ? "all answers matched" : "ANSWERS DIFFERED");
    return new BenchmarkResults(args.scaleFactor(), args.backend(), device, active, date, spark.sparkContext().master(),
        spark.version(), WARM_UPS, args.repetitions(), geomean, allMatched, queries);
  }

  private static String abbreviate(String name) {
    return name.length() <= 40 ? name : name.substring(0, 39) + "…";
  }
}
