package io.sparkwarp.examples;

import io.sparkwarp.examples.tpch.TpchQueries;
import io.sparkwarp.examples.tpch.TpchTables;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;

/**
 * A full scan of every lineitem column, aggregated so nothing else runs: what loading the plugin costs a query that
 * has no plugin operator, and what the GPU Parquet scan gives the same query. One JVM per configuration, since what
 * is measured first is the plugin's presence (its executor start-up, memory pools, settings), not its rewrite: run
 * the configurations one after another on the same data (docs/PERFORMANCE.md has the commands and figures).
 *
 * <p>Arguments: scale factor, data directory, configuration ({@code vanilla}; {@code plugin}: loaded with backend
 * cuda, its Parquet scan off, so the query has no plugin operator; {@code plugin-after-gpu}: the same after TPC-H
 * queries have run on the GPU in the JVM, so its pools hold memory; {@code gpu-scan}: loaded with its Parquet scan,
 * the aggregates, whose string maxima the GPU does not compute, on the CPU), repetitions. Prints one line per run
 * and {@code median <config> <ms>}.
 */
public final class ScanOverheadBenchmark {
  /** Every lineitem column read; only aggregates above the scan. */
  public static final String FULL_SCAN = """
      SELECT count(l_orderkey), sum(l_partkey + l_suppkey + l_linenumber),
             sum(l_quantity + l_extendedprice + l_discount + l_tax), max(l_returnflag), max(l_linestatus),
             max(l_shipdate), max(l_commitdate), max(l_receiptdate), max(l_shipinstruct), max(l_shipmode),
             max(l_comment)
      FROM lineitem""";

  private ScanOverheadBenchmark() {}

  public static void main(String[] args) {
    if (args.length != 4 || !List.of("vanilla", "plugin", "plugin-after-gpu", "gpu-scan").contains(args[2])) {
      System.err.println("usage: ScanOverheadBenchmark SCALE_FACTOR DATA_DIR vanilla|plugin|plugin-after-gpu|gpu-scan "
          + "REPETITIONS");
      System.exit(2);
    }
    double scaleFactor = Double.parseDouble(args[0]);
    String config = args[2];
    int repetitions = Integer.parseInt(args[3]);
    SparkSession.Builder builder = SparkSession.builder().appName("sparkwarp scan overhead (" + config + ")")
        .master(System.getProperty("spark.master", "local[16]"));
    if (!config.equals("vanilla")) {
      builder.config("spark.plugins", "io.sparkwarp.WarpPlugin").config("spark.warp.backend", "cuda");
    }
    SparkSession spark = builder.getOrCreate();
    spark.sparkContext().setLogLevel("WARN");
    try {
      TpchTables.writeAndRegister(spark, scaleFactor, Path.of(args[1]).resolve("sf" + scaleFactor));
      if (config.equals("plugin-after-gpu")) {
        for (DemoQueries.DemoQuery q : List.of(TpchQueries.Q6, TpchQueries.Q3, TpchQueries.Q9)) {
          spark.sql(q.sql()).collectAsList();
        }
      }
      // the presence alone: the GPU scan would be the query's one plugin operator
      if (config.startsWith("plugin")) spark.conf().set("spark.warp.exec.FileSourceScanExec.enabled", "false");
      List<Long> millis = new ArrayList<>();
      for (int i = 0; i <= repetitions; i++) {  // run 0 warms up
        long start = System.nanoTime();
        spark.sql(FULL_SCAN).collectAsList();
        long ms = (System.nanoTime() - start) / 1_000_000;
        System.out.printf("%s run %d: %d ms%s%n", config, i, ms, i == 0 ? " (warm-up)" : "");
        if (i > 0) millis.add(ms);
      }
      millis.sort(null);
      System.out.printf("median %s %d%n", config, millis.get(millis.size() / 2));
    } finally {
      spark.stop();
    }
  }
}
