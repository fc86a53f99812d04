package io.sparkwarp.examples;

import io.sparkwarp.plugin.PluginState;
import io.sparkwarp.plugin.runtime.GpuRuntime;
import org.apache.spark.sql.SparkSession;

/**
 * Whether the plugin rewrites this session's plans, and on what device, so that reports never call a run "gpu" when
 * Spark's own plan ran. The plugin's classes are touched only when {@code spark.plugins} names it: a job run without
 * the plugin jar still works.
 */
public final class PluginStatus {
  /** The plugin's class, as {@code spark.plugins} names it. */
  public static final String PLUGIN = "io.sparkwarp.WarpPlugin";

  private PluginStatus() {}

  /** Whether the plugin is loaded and active: a backend was opened, not left to Spark by {@code auto}. */
  public static boolean active(SparkSession spark) {
    return loaded(spark) && PluginState.active();
  }

  /**
   * What the plugin runs on: each GPU's description (name, compute capability, memory), "host" for the reference
   * backend, or why nothing. In a cluster the executors open their GPUs, so the driver names none.
   */
  public static String device(SparkSession spark) {
    if (!loaded(spark)) return "none, spark.plugins does not name " + PLUGIN;
    if (!PluginState.active()) return "none, spark.warp.backend=auto found no usable GPU";
    if (!spark.sparkContext().isLocal()) return "the executors' GPUs";
    return GpuRuntime.get().devices().stream().map(d -> d.backend().description())
        .collect(java.util.stream.Collectors.joining(", "));
  }

  private static boolean loaded(SparkSession spark) {
    return spark.sparkContext().getConf().get("spark.plugins", "").contains(PLUGIN);
  }
}
