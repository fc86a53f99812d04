package io.sparkwarp.plugin.runtime;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.BackendUnavailableException;
import io.sparkwarp.kernels.Backends;
import io.sparkwarp.kernels.cuda.CudaDevice;
import io.sparkwarp.kernels.cuda.CudaModule;
import io.sparkwarp.plugin.config.WarpConf;
import io.sparkwarp.kernels.DeviceStream;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.resource.ResourceInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor's GPU, opened once per JVM and shared by its tasks: the backend (memory pools, streams, kernels) and
 * the admission of tasks to it by device memory ({@link DeviceAdmission}).
 */
public final class GpuRuntime {
  private static final Logger LOG = LoggerFactory.getLogger(GpuRuntime.class);
  /** How long shutdown waits for tasks that still use the GPU. */
  static final long SHUTDOWN_WAIT_MILLIS = 30_000;
  private static GpuRuntime instance;

  private final Backend backend;
  private final DeviceAdmission admission;
  /** For device data shared by tasks (broadcast builds): it must outlive every task stream. */
  private final DeviceStream sharedStream;
  private final List<Runnable> onShutdown = new CopyOnWriteArrayList<>();

  private GpuRuntime(Backend backend, long taskReserve, int maxTasks) {
    this.backend = backend;
    this.admission = new DeviceAdmission(backend.deviceMemory(), taskReserve, maxTasks);
    this.sharedStream = backend.newStream();
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
    instance = new GpuRuntime(backend, warp.get(WarpConf.TASK_DEVICE_RESERVE), warp.get(WarpConf.CONCURRENT_GPU_TASKS));
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

  DeviceAdmission admission() {
    return admission;
  }

  /** The stream device data shared across tasks is made and freed on. */
  public DeviceStream sharedStream() {
    return sharedStream;
  }

  /** Runs {@code cleanup} when the executor stops, before the backend closes (caches of shared device data). */
  public void onShutdown(Runnable cleanup) {
    onShutdown.add(cleanup);
  }

  /**
   * Closes the backend when the executor stops, once no task uses it: Spark shuts plugins down while the tasks it
   * killed may still be unwinding (a failed query's), and freeing the pinned and device memory they still read
   * would crash the JVM. Tasks still running after {@link #SHUTDOWN_WAIT_MILLIS} keep it; the process exit frees it.
   */
  public static synchronized void shutdown() {
    if (instance != null) {
      int running = TaskGpu.awaitNone(SHUTDOWN_WAIT_MILLIS);
      if (running > 0) {
        LOG.warn("sparkwarp: {} tasks still use the GPU at shutdown; its memory is left to the process exit",
            running);
        instance = null;
        return;
      }
      try {
        instance.onShutdown.forEach(Runnable::run);
        instance.sharedStream.close();
      } finally {
        instance.backend.close();
        instance = null;
      }
    }
  }
}
