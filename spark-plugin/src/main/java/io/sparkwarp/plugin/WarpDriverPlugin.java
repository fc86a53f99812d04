package io.sparkwarp.plugin;

import io.sparkwarp.plugin.config.WarpConf;
import io.sparkwarp.plugin.runtime.GpuRuntime;
import java.util.HashMap;
import java.util.Map;
import org.apache.spark.SparkContext;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.PluginContext;
import scala.Tuple2;

/**
 * Driver side: validates the {@code spark.warp.*} settings (a bad one stops the application with a message naming
 * it), decides whether plans are rewritten, and appends {@link WarpSessionExtensions} to {@code spark.sql.extensions}
 * so sessions built on this context pick the rewrite up.
 */
public final class WarpDriverPlugin implements DriverPlugin {
  static final String EXTENSIONS_KEY = "spark.sql.extensions";

  @Override
  public Map<String, String> init(SparkContext sc, PluginContext context) {
    Map<String, String> settings = new HashMap<>();
    for (Tuple2<String, String> kv : sc.conf().getAll()) settings.put(kv._1(), kv._2());
    WarpConf.validate(settings);
    String name = WarpSessionExtensions.class.getName();
    String existing = sc.conf().get(EXTENSIONS_KEY, "");
    if (!existing.contains(name)) {
      // sc.conf() is the context's own conf: sessions read their extensions from it when they are built
      sc.conf().set(EXTENSIONS_KEY, existing.isBlank() ? name : existing + "," + name);
    }
    PluginState.decide(sc.conf());
    return Map.of();
  }

  @Override
  public void shutdown() {
    PluginState.reset();
    GpuRuntime.shutdown();
  }
}
