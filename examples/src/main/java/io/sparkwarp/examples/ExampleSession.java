package io.sparkwarp.examples;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.SparkSession;

/**
 * What the command-line examples share: arguments parsed or a usage line and exit code 2, and a session with the
 * plugin on the chosen backend and Spark's INFO logging off. spark-submit sets the master; a plain {@code java} run
 * gets all local cores.
 */
final class ExampleSession {
  private ExampleSession() {}

  /** The parsed arguments; on a bad one prints the message (the usage line) and exits 2. */
  static <T> T argsOrExit(Function<String[], T> parse, String[] argv) {
    try {
      return parse.apply(argv);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      throw e;  // not reached
    }
  }

  /**
   * Runs a benchmark command: {@code run} in a session with the plugin on {@code backend} (no explain trees between
   * its output's lines), its results written to {@code json} when one is named; exits 0 when every answer matched,
   * else 1.
   */
  static <R> void benchmark(String appName, String backend, Optional<Path> json, Function<SparkSession, R> run,
      BiConsumer<R, Path> write, Predicate<R> matched) {
    SparkSession spark = start(appName, backend, Map.of("spark.warp.explain", "NONE"));
    boolean allMatched;
    try {
      R results = run.apply(spark);
      json.ifPresent(file -> {
        write.accept(results, file);
        System.out.println("results written to " + file.toAbsolutePath());
      });
      allMatched = matched.test(results);
    } finally {
      spark.stop();
    }
    System.exit(allMatched ? 0 : 1);
  }

  /** A session with the plugin loaded on {@code backend}, plus {@code settings}. */
  static SparkSession start(String appName, String backend, Map<String, String> settings) {
    QuietLogging.warnOnly();  // Spark's INFO chatter would bury the report
    SparkSession.Builder builder = SparkSession.builder().appName(appName)
        .config("spark.plugins", PluginStatus.PLUGIN)
        .config("spark.warp.backend", backend);
    settings.forEach(builder::config);
    if (!new SparkConf().contains("spark.master")) builder.master("local[*]");
    return builder.getOrCreate();
  }
}
