package io.sparkwarp.examples;

import io.sparkwarp.examples.DemoQueries.DemoQuery;
import io.sparkwarp.examples.report.BenchmarkResults;
import io.sparkwarp.examples.report.BenchmarkResults.QueryResult;
import io.sparkwarp.examples.report.FullScanResults;
import io.sparkwarp.examples.tpch.TpchTables;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.spark.sql.SparkSession;

/**
 * The GPU Parquet scan against Spark's reader on a scan that reads everything: every column of TPC-H lineitem,
 * aggregated on the device into one row (sums, counts, date maxima), so the scan is what is timed and no page is
 * pruned. Data as {@link TpchBenchmark} generates it (shared with it); one session, one warm-up per side, then the
 * median of N; answers compared. Besides the times it reports the compressed bytes of the column chunks (from the
 * footers) and the bytes the GPU scan uploaded (its metric): a ratio of 1.0 means the device read the files as
 * stored, nothing decompressed or copied twice on the host. Then one more run a side, untimed, prints its stages'
 * tasks and spans ({@link StageTimeline}). Exits 1 when the answers differed, 2 on bad arguments.
 *
 * <p>Arguments, all optional, in order: scale factor (1), data directory (./tpch-data), backend (auto|cuda|host,
 * default auto), repetitions (5), JSON output file, Parquet codec of the tables (snappy; zstd, lz4_raw, gzip and
 * uncompressed generate a copy of their own).
 */
public final class FullScanBenchmark {
  /** Every lineitem column read, each by an aggregate the GPU computes; one row out. */
  public static final DemoQuery FULL_SCAN = new DemoQuery("lineitem full scan", """
      SELECT count(*), sum(l_orderkey), sum(l_partkey), sum(l_suppkey), sum(l_linenumber), sum(l_quantity),
             sum(l_extendedprice), sum(l_discount), sum(l_tax), count(l_returnflag), count(l_linestatus),
             max(l_shipdate), max(l_commitdate), max(l_receiptdate), count(l_shipinstruct), count(l_shipmode),
             count(l_comment)
      FROM lineitem""");

  static final String USAGE = "usage: FullScanBenchmark [scale-factor=1] [data-dir=./tpch-data]"
      + " [backend=auto|cuda|host] [repetitions=5] [json-output] [codec=snappy|zstd|...]";
  private static final Set<String> BACKENDS = Set.of("auto", "cuda", "host");

  private FullScanBenchmark() {}

  /** The command line as {@link TpchBenchmark}'s arguments with the full scan as the one query. */
  public static TpchBenchmark.Args parse(String... argv) {
    try {
      if (argv.length > 6) throw new IllegalArgumentException("too many arguments");
      double scale = argv.length > 0 ? Double.parseDouble(argv[0]) : 1;
      String backend = argv.length > 2 ? argv[2] : "auto";
      int repetitions = argv.length > 3 ? Integer.parseInt(argv[3]) : 5;
      String codec = argv.length > 5 ? argv[5] : "snappy";
      if (scale <= 0 || repetitions < 1 || !BACKENDS.contains(backend) || !TpchTables.CODECS.contains(codec)) {
        throw new IllegalArgumentException("a positive scale factor and repetitions, a known backend and codec");
      }
      return new TpchBenchmark.Args(scale, Path.of(argv.length > 1 ? argv[1] : "tpch-data"), backend, repetitions,
          List.of(FULL_SCAN), argv.length > 4 ? Optional.of(Path.of(argv[4])) : Optional.empty(), codec);
    } catch (IllegalArgumentException e) {  // a bad number too
      throw new IllegalArgumentException(USAGE + " (" + e.getMessage() + ")", e);
    }
  }

  public static void main(String[] argv) {
    TpchBenchmark.Args args = ExampleSession.argsOrExit(FullScanBenchmark::parse, argv);
    ExampleSession.benchmark("sparkwarp full-scan benchmark", args.backend(), args.json(),
        spark -> run(spark, args, System.out), FullScanResults::write, results -> results.run().allMatched());
  }

  /** Prepares the tables, runs the scan on both sides and prints the table and the bytes; returns the results. */
  public static FullScanResults run(SparkSession spark, TpchBenchmark.Args args, PrintStream out) {
    BenchmarkResults run = TpchBenchmark.run(spark, args, out);
    QueryResult scan = run.queries().get(0);
    long compressed = compressedBytes(spark.sessionState().newHadoopConf(), args.tablesDir().resolve("lineitem"));
    FullScanResults results = new FullScanResults(run, compressed, scan.scanBytes(),
        compressed == 0 ? Double.NaN : (double) scan.scanBytes() / compressed);
    out.printf("compressed column chunks %.1f MB, uploaded by the GPU scan %.1f MB (%.3f of them), over PCIe in "
        + "all %.1f MB%n", compressed / 1e6, scan.scanBytes() / 1e6, results.uploadedPerCompressed(),
        scan.pcieBytes() / 1e6);
    // the waves of tasks and the stages' spans, which the operators' metrics summed over tasks hide
    for (boolean gpu : new boolean[] {false, true}) {
      out.println("stages of one more run " + (gpu ? "with the plugin" : "of Spark alone") + ":");
      StageTimeline.of(spark, () -> CpuGpuRun.once(spark, FULL_SCAN.sql(), gpu)).forEach(l -> out.println("  " + l));
    }
    return results;
  }

  /** The compressed bytes of every column chunk of the Parquet files in {@code dir}, as their footers say. */
  static long compressedBytes(Configuration conf, Path dir) {
    org.apache.hadoop.fs.Path path = new org.apache.hadoop.fs.Path(dir.toUri());
    long bytes = 0;
    try {
      FileSystem fs = path.getFileSystem(conf);
      for (FileStatus file : fs.listStatus(path, p -> p.getName().endsWith(".parquet"))) {
        try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromStatus(file, conf))) {
          for (BlockMetaData block : reader.getFooter().getBlocks()) {
            for (ColumnChunkMetaData chunk : block.getColumns()) bytes += chunk.getTotalSize();
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the footers under " + dir, e);
    }
    return bytes;
  }
}
