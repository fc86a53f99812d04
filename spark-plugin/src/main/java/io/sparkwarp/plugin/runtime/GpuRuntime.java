package io.sparkwarp.plugin.runtime;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.BackendUnavailableException;
import io.sparkwarp.kernels.Backends;
import io.sparkwarp.kernels.cuda.CudaDevice;
import io.sparkwarp.kernels.cuda.CudaModule;
import io.sparkwarp.plugin.config.WarpConf;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.IntStream;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.TaskContext;
import org.apache.spark.resource.ResourceInformation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The executor's GPUs, opened once per JVM and shared by its tasks: one {@link GpuDevice} each (backend, admission
 * by its memory, shared stream), and the placement of each task on one of them, the one with the fewest tasks.
 */
public final class GpuRuntime {
  private static final Logger LOG = LoggerFactory.getLogger(GpuRuntime.class);
  /** How long shutdown waits for tasks that still use the GPU. */
  static final long SHUTDOWN_WAIT_MILLIS = 30_000;
  private static GpuRuntime instance;

  private final List<GpuDevice> devices;
  private final List<Runnable> onShutdown = new CopyOnWriteArrayList<>();
  private Boolean devicesReadEachOther;  // asked once: enabling peer access is a driver call per pair

  private GpuRuntime(List<GpuDevice> devices) {
    this.devices = List.copyOf(devices);
  }

  /**
   * Opens the backend {@code spark.warp.backend} names on the executor's GPUs, unless already open: the ones Spark
   * assigned ({@code assigned}, CUDA ordinals), or the first usable visible one when Spark assigns none (local
   * mode); {@code spark.warp.devices}, when set, takes that many of those or of the visible ones; the host backend
   * simulates that many (default 1).
   *
   * @throws BackendUnavailableException when it cannot start
   */
  public static synchronized GpuRuntime start(SparkConf conf, List<Integer> assigned) {
    if (instance != null) return instance;
    WarpConf warp = WarpConf.of(conf);
    List<Integer> ordinals = ordinals(warp, assigned);
    List<GpuDevice> devices = new ArrayList<>();
    try {
      for (int i = 0; i < ordinals.size(); i++) {
        BackendOptions options = BackendOptions.defaults().withDevice(ordinals.get(i))
            .withDeviceMemoryLimit(warp.get(WarpConf.DEVICE_MEMORY_LIMIT))
            .withPinnedMemoryLimit(warp.get(WarpConf.PINNED_MEMORY_LIMIT));
        Backend backend = Backends.open(warp.get(WarpConf.BACKEND), options);
        LOG.info("sparkwarp: device {} is {}", i, backend.description());
        devices.add(new GpuDevice(i, backend, warp.get(WarpConf.TASK_DEVICE_RESERVE),
            warp.get(WarpConf.CONCURRENT_GPU_TASKS)));
      }
    } catch (RuntimeException e) {
      devices.forEach(GpuDevice::close);
      throw e;
    }
    instance = new GpuRuntime(devices);
    return instance;
  }

  /** The CUDA ordinals to open (for the host backend, as many placeholders as devices to simulate). */
  private static List<Integer> ordinals(WarpConf warp, List<Integer> assigned) {
    int wanted = warp.get(WarpConf.DEVICES);
    if (warp.get(WarpConf.BACKEND) == BackendKind.HOST) {
      return IntStream.range(0, Math.max(1, wanted)).boxed().toList();
    }
    List<Integer> available = !assigned.isEmpty() ? assigned
        : CudaDevice.list().stream().filter(CudaDevice::supported).map(CudaDevice::ordinal).toList();
    if (available.isEmpty()) throw new BackendUnavailableException("no GPU of sm_80 or newer is visible");
    if (wanted > available.size()) {
      LOG.warn("sparkwarp: spark.warp.devices={} but this executor has {} GPUs; using those", wanted,
          available.size());
    }
    return chosen(wanted, !assigned.isEmpty(), available);
  }

  /**
   * The devices an executor opens of those {@code available} (assigned by Spark, or visible): {@code wanted} of them
   * at most, or where that is 0 all Spark assigned and, in local mode, one. Local mode takes one by default: TPC-H
   * SF10 on two H200s ran 14 of 17 queries at 0.96-1.4x Spark, where one H200 ran them at 2.4-12.8x
   * (docs/PERFORMANCE.md), when shuffle output went through Spark's shuffle on more than one device; with the
   * output kept on the device and read across ({@link #devicesReadEachOther}) two ran Q9 and Q18 as fast as one,
   * not faster.
   */
  static List<Integer> chosen(int wanted, boolean assignedBySpark, List<Integer> available) {
    int count = wanted > 0 ? wanted : assignedBySpark ? available.size() : 1;
    return available.subList(0, Math.min(count, available.size()));
  }

  /** Like {@link #start}, but with backend=auto a missing GPU is only logged (the driver has already decided). */
  public static synchronized void startIfUsable(SparkConf conf, List<Integer> assigned) {
    try {
      start(conf, assigned);
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

  /** The running executor's GPUs; started on first use with the task's assigned GPUs if the plugin did not. */
  public static synchronized GpuRuntime get() {
    if (instance == null) {
      TaskContext task = TaskContext.get();
      ResourceInformation gpus = task == null ? null : task.resources().get("gpu").getOrElse(() -> null);
      start(SparkEnv.get().conf(), assignedOrdinals(gpus));
    }
    return instance;
  }

  /** The CUDA ordinals of Spark's "gpu" resource addresses; empty when Spark schedules no GPUs. */
  public static List<Integer> assignedOrdinals(ResourceInformation gpus) {
    if (gpus == null) return List.of();
    return Arrays.stream(gpus.addresses()).map(a -> Integer.parseInt(a.trim())).toList();
  }

  public List<GpuDevice> devices() {
    return devices;
  }

  /**
   * Whether every device's kernels may read every other's memory ({@link Backend#readsPeerMemory}), so a task takes
   * device data another task left on another device (kept shuffle output) where it is; true with one device.
   * Enables CUDA peer access between them on the first call.
   */
  public synchronized boolean devicesReadEachOther() {
    if (devicesReadEachOther == null) {
      devicesReadEachOther = Backends.readEachOther(devices.stream().map(GpuDevice::backend).toList());
    }
    return devicesReadEachOther;
  }

  /** The device a new task goes to: the one with the fewest unfinished tasks (the lowest index among equals). */
  synchronized GpuDevice place() {
    GpuDevice best = devices.get(0);
    for (GpuDevice d : devices) {
      if (d.tasks() < best.tasks()) best = d;
    }
    best.taskPlaced();
    return best;
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
      } finally {
        instance.devices.forEach(GpuDevice::close);
        instance = null;
      }
    }
  }
}
