package io.sparkwarp.plugin;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendUnavailableException;
import io.sparkwarp.plugin.config.WarpConf;
import io.sparkwarp.plugin.runtime.GpuRuntime;
import java.util.List;
import org.apache.spark.SparkConf;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this driver rewrites plans at all, decided once per application: always with the host backend; with
 * cuda when the GPU opens (and it must); with auto only when a usable GPU is there, otherwise one warning and
 * Spark runs as without the plugin.
 */
public final class PluginState {
  private static final Logger LOG = LoggerFactory.getLogger(PluginState.class);
  private static volatile Boolean active;

  private PluginState() {}

  /**
   * Decides from the application's settings. In local mode the driver's JVM is the executor, so the GPU is opened
   * here; in a cluster the executors open theirs, and auto counts on them having one when Spark schedules GPUs
   * ({@code spark.executor.resource.gpu.amount}) or when the driver sees one.
   *
   * @throws BackendUnavailableException with backend=cuda when the GPU cannot be used
   */
  public static synchronized void decide(SparkConf conf) {
    if (active != null) return;
    BackendKind kind = WarpConf.of(conf).get(WarpConf.BACKEND);
    boolean local = conf.get("spark.master", "local").startsWith("local");
    boolean gpusScheduled = conf.getDouble("spark.executor.resource.gpu.amount", 0) > 0;
    if (kind == BackendKind.HOST || (!local && gpusScheduled)) {
      active = true;
      if (local) GpuRuntime.start(conf, List.of());
      return;
    }
    try {
      if (local) {
        GpuRuntime.start(conf, List.of());
      } else {
        GpuRuntime.probe(conf);
      }
      active = true;
    } catch (BackendUnavailableException e) {
      if (kind == BackendKind.CUDA) throw e;
      active = false;
      // one line for a newcomer; the cause's stack trace (JCuda's loader writes several lines) only at DEBUG
      LOG.warn("sparkwarp is inactive: no usable GPU ({}); spark.warp.backend=auto leaves every query to Spark's CPU "
          + "operators. Set spark.warp.backend=cuda to make this an error, or =host to run the host backend.",
          firstLine(e.getMessage()));
      LOG.debug("sparkwarp: why no GPU could be used", e);
    }
  }

  private static String firstLine(String message) {
    return message == null ? "no reason given" : message.lines().findFirst().orElse("").strip();
  }

  /** Forgets the decision when the application's context stops, so a new context decides afresh. */
  public static synchronized void reset() {
    active = null;
  }

  /**
   * Whether this JVM's driver has decided not to rewrite plans. In local mode the executor shares the JVM: it then
   * opens no GPU and repeats no warning.
   */
  public static boolean decidedInactive() {
    return Boolean.FALSE.equals(active);
  }

  /** Whether plans are rewritten; decided from the active Spark conf the first time it is asked. */
  public static boolean active() {
    if (active == null) decide(org.apache.spark.SparkEnv.get().conf());
    return active;
  }
}
