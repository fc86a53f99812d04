package io.sparkwarp;

import io.sparkwarp.plugin.WarpDriverPlugin;
import io.sparkwarp.plugin.WarpExecutorPlugin;
import org.apache.spark.api.plugin.DriverPlugin;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.SparkPlugin;

/**
 * The one setting a user needs: {@code --conf spark.plugins=io.sparkwarp.WarpPlugin}. The driver side registers
 * the SQL extension that rewrites plans; the executor side opens the executor's GPU.
 */
public final class WarpPlugin implements SparkPlugin {
  @Override
  public DriverPlugin driverPlugin() {
    return new WarpDriverPlugin();
  }

  @Override
  public ExecutorPlugin executorPlugin() {
    return new WarpExecutorPlugin();
  }
}
