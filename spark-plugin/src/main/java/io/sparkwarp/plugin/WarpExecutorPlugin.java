package io.sparkwarp.plugin;

import io.sparkwarp.plugin.exec.BroadcastBuilds;
import io.sparkwarp.plugin.runtime.GpuRuntime;
import io.sparkwarp.plugin.shuffle.DeviceShuffleStore;
import java.util.Map;
import org.apache.spark.TaskFailedReason;
import org.apache.spark.api.plugin.ExecutorPlugin;
import org.apache.spark.api.plugin.PluginContext;
import org.apache.spark.resource.ResourceInformation;

/**
 * Executor side: opens the GPUs Spark assigned to this executor ({@code spark.executor.resource.gpu.*}), or every
 * usable visible one when Spark schedules no GPUs (local mode), as {@code spark.warp.devices} says. As each task ends
 * it frees the device builds of broadcasts and the device shuffle output of shuffles Spark has removed since.
 */
public final class WarpExecutorPlugin implements ExecutorPlugin {
  @Override
  public void init(PluginContext context, Map<String, String> extraConf) {
    if (PluginState.decidedInactive()) return;  // local mode: the driver in this JVM found no GPU and said so
    GpuRuntime.startIfUsable(context.conf(), GpuRuntime.assignedOrdinals(context.resources().get("gpu")));
  }

  @Override
  public void onTaskSucceeded() {
    BroadcastBuilds.freeRemoved();
    DeviceShuffleStore.get().sweep();
  }

  @Override
  public void onTaskFailed(TaskFailedReason failureReason) {
    BroadcastBuilds.freeRemoved();
    DeviceShuffleStore.get().sweep();
  }

  @Override
  public void shutdown() {
    GpuRuntime.shutdown();
  }
}
