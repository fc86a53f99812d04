package io.sparkwarp.plugin.runtime;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.BackendUnavailableException;
import io.sparkwarp.kernels.Backends;
import io.sparkwarp.kernels.cuda.CudaDevice;
import io.sparkwarp.kernels.cuda.CudaModule;
import io.sparkwarp.plugin.config.WarpConf;
import java.util.concurrent.Semaphore;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.resource.ResourceInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor's GPU, opened once per JVM and shared by its tasks: the backend (memory pools, streams, kernels) and
 * the semaphore that lets {@code spark.warp.concurrentGpuTasks} tasks use it at a time.
 */
public final class GpuRuntime {
  private static final Logger LOG = LoggerFactory.getLogger(GpuRuntime.class);
  private static GpuRuntime instance;

  private final Backend backend;
  private final Semaphore gpuTasks;

  private GpuRuntime(Backend backend, int concurrentTasks) {
    this.backend = backend;
    this.gpuTasks = new Semaphore(concurrentTasks, true);
  }

  /**
   * Opens the backend {@code spark.warp.backend} names on GPU {@code ordinal}, unless already open.
   *
   * @throws BackendUnavailableException when it cannot start
   */
  public static synchronized GpuRuntime start(SparkConf conf, int ordinal) {
    if (instance != null) return instance;
    WarpConf warp = WarpConf.of(conf);
    BackendOptions options = BackendOptions.defaults().withDevice(ordinal)
        .withDeviceMemoryLimit(warp.get(WarpConf.DEVICE_MEMORY_LIMIT))
        .withPinnedMemoryLimit(warp.get(WarpConf.PINNED_MEMORY_LIMIT));
    Backend backend = Backends.open(warp.get(WarpConf.BACKEND), options);
    LOG.info("sparkwarp: using {}", backend.description());
    instance = new GpuRuntime(backend, warp.get(WarpConf.CONCURRENT_GPU_TASKS));
    return instance;
  }

  /** Like {@link #start}, but with backend=auto a missing GPU is only logged (the driver has already decided). */
  public static synchronized void startIfUsable(SparkConf conf, int ordinal) {
    try {
      start(conf, ordinal);
    } catch (BackendUnavailableException e) {
      if (WarpConf.of(conf).get(WarpConf.BACKEND) != BackendKind.AUTO) throw e;
      LOG.warn("sparkwarp: this executor has no usable GPU: {}", e.getMessage());
    }
  }

  /**
   * Checks, without opening a context, that this machine has a GPU the kernels run on (a driver in a cluster).
   *
   * @throws BackendUnavailableException when it has not
   */
  public static void probe(SparkConf conf) {
    if (WarpConf.of(conf).get(WarpConf.BACKEND) == BackendKind.HOST) return;
    CudaModule.checkFatbinPresent();
    if (CudaDevice.list().stream().noneMatch(CudaDevice::supported)) {
      throw new BackendUnavailableException("no GPU of sm_80 or newer is visible");
    }
  }

  /** The running executor's GPU; started on first use with the task's assigned GPU if the plugin did not. */
  public static synchronized GpuRuntime get() {
    if (instance == null) {
      TaskContext task = TaskContext.get();
      ResourceInformation gpus = task == null ? null : task.resources().get("gpu").getOrElse(() -> null);
      int ordinal = gpus == null || gpus.addresses().length == 0 ? 0 : Integer.parseInt(gpus.addresses()[0].trim());
      start(SparkEnv.get().conf(), ordinal);
    }
    return instance;
  }

  public Backend backend() {
    return backend;
  }

  Semaphore gpuTasks() {
    return gpuTasks;
  }

  /** Closes the backend when the executor stops. */
  public static synchronized void shutdown() {
    if (instance != null) {
      instance.backend.close();
      instance = null;
    }
  }
}
