package io.sparkwarp.examples;

import java.util.Map;
import java.util.function.Function;
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
