package io.sparkwarp.plugin;

import io.sparkwarp.plugin.exec.BroadcastBuilds;
import io.sparkwarp.plugin.runtime.GpuRuntime;
import java.util.Map;
import org.apache.spark.TaskFailedReason;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.resource.ResourceInformation;

/**
 * Executor side: opens the GPU Spark assigned to this executor ({@code spark.executor.resource.gpu.*}: the first
 * address it was given), or device 0 when Spark schedules no GPUs (local mode, single-GPU hosts). As each task ends
 * it frees the device builds of broadcasts Spark has removed since.
 */
public final class WarpExecutorPlugin implements ExecutorPlugin {
  @Override
  public void init(PluginContext context, Map<String, String> extraConf) {
    if (PluginState.decidedInactive()) return;  // local mode: the driver in this JVM found no GPU and said so
    ResourceInformation gpus = context.resources().get("gpu");
    int ordinal = gpus == null || gpus.addresses().length == 0 ? 0 : Integer.parseInt(gpus.addresses()[0].trim());
    GpuRuntime.startIfUsable(context.conf(), ordinal);
  }

  @Override
  public void onTaskSucceeded() {
    BroadcastBuilds.freeRemoved();
  }

  @Override
  public void onTaskFailed(TaskFailedReason failureReason) {
    BroadcastBuilds.freeRemoved();
  }

  @Override
  public void shutdown() {
    GpuRuntime.shutdown();
  }
}
