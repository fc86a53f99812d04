package io.sparkwarp.plugin.runtime;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceMemory;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.spark.TaskContext;
import org.apache.spark.util.TaskCompletionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task's use of the GPU: its own stream, its memory accounting and an Arrow allocator over pinned memory for
 * its transfers, from its first device work to its end (then it reports any device memory left allocated).
 *
 * <p>A task is admitted to the device ({@link DeviceAdmission}: by device memory) exactly while it holds device
 * memory: {@link #acquireDevice()} before the first upload, {@link #releaseDeviceIfIdle()} once its batches are
 * downloaded. Host-side work (decoding Parquet, gathering rows into pinned memory) runs on every core meanwhile.
 */
public final class TaskGpu {
  private static final Logger LOG = LoggerFactory.getLogger(TaskGpu.class);
  private static final Map<Long, TaskGpu> BY_TASK = new ConcurrentHashMap<>();

  private final GpuDevice device;
  private final long taskId;
  private final DeviceStream stream;
  private final BufferAllocator hostAllocator;
  private boolean admitted;
  /** How long a task waits for admission to each other device of a spread join before it goes on without. */
  private static final long HELPER_ADMISSION_MILLIS = 1000;

  /** The executor's other devices this task works on too (a join spread over them), checked for leaks at its end. */
  private final Set<GpuDevice> helpers = new LinkedHashSet<>();
  /** Those of them that admitted it; left when it ends. */
  private final Set<GpuDevice> admittedHelpers = new LinkedHashSet<>();

  private TaskGpu(GpuDevice device, long taskId) {
    this.device = device;
    this.taskId = taskId;
    this.stream = device.backend().newStream();
    this.hostAllocator = device.backend().transferMemory().arrowAllocator()
        .newChildAllocator("task " + taskId, 0, Long.MAX_VALUE);
  }

  /** The current task's GPU state, made on first use. */
  public static TaskGpu get() {
    TaskContext task = TaskContext.get();
    if (task == null) throw new IllegalStateException("GPU work outside a Spark task");
    long id = task.taskAttemptId();
    TaskGpu existing = BY_TASK.get(id);
    if (existing != null) return existing;
    GpuDevice device = GpuRuntime.get().place();
    DeviceMemory.TaskScope scope;
    TaskGpu gpu;
    try {
      scope = device.backend().deviceMemory().enterTask(id);
      try {
        gpu = new TaskGpu(device, id);
      } catch (RuntimeException e) {
        scope.close();
        throw e;
      }
    } catch (RuntimeException e) {
      device.taskFinished();
      throw e;
    }
    BY_TASK.put(id, gpu);
    task.addTaskCompletionListener((TaskCompletionListener) ctx -> {
      try {
        gpu.finish();
      } finally {
        scope.close();
      }
    });
    return gpu;
  }

  /** Waits up to {@code millis} for every task's GPU state to finish; returns how many are left. */
  static int awaitNone(long millis) {
    long deadline = System.nanoTime() + millis * 1_000_000;
    while (!BY_TASK.isEmpty() && System.nanoTime() < deadline) {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    return BY_TASK.size();
  }

  /** Admits this task to the device, waiting until its memory fits; a no-op while it is admitted. */
  public synchronized void acquireDevice() {
    if (!admitted) {
      device.admission().admit(taskId);
      admitted = true;
    }
  }

  /** Leaves the device when the task holds no device memory, so a waiting task can start its device work. */
  public synchronized void releaseDeviceIfIdle() {
    if (admitted && backend().deviceMemory().bytesInUse(taskId) == 0) {
      admitted = false;
      device.admission().leave(taskId);
    }
  }

  /**
   * Admits this task to every device of the executor, for work spread over them: allocations there are charged to
   * the task (its threads enter it, {@link io.sparkwarp.kernels.memory.DeviceMemory#currentTask}), and it leaves them
   * when it ends. On another device it waits for admission at most {@link #HELPER_ADMISSION_MILLIS}, then goes on
   * without (holding its own device, it could otherwise wait on a task doing the same the other way); its memory
   * there is still charged, and other tasks' admission counts it. Returns the devices, in index order.
   */
  public synchronized List<GpuDevice> acquireAllDevices() {
    acquireDevice();
    List<GpuDevice> all = GpuRuntime.get().devices();
    for (GpuDevice other : all) {
      if (other != device && helpers.add(other) && other.admission().tryAdmit(taskId, HELPER_ADMISSION_MILLIS)) {
        admittedHelpers.add(other);
      }
    }
    return all;
  }

  private synchronized void finish() {
    BY_TASK.remove(taskId);
    try {
      stream.close();
      for (GpuDevice d : devicesUsed()) {
        long leaked = d.backend().deviceMemory().finishTask(taskId);
        if (leaked > 0) {
          LOG.error("sparkwarp: task {} left {} bytes of device memory allocated on {}", taskId, leaked,
              d.backend().description());
        }
      }
      hostAllocator.close();
    } finally {
      admittedHelpers.forEach(d -> d.admission().leave(taskId));
      admittedHelpers.clear();
      helpers.clear();
      if (admitted) {
        admitted = false;
        device.admission().leave(taskId);
      }
      device.taskFinished();
    }
  }

  private List<GpuDevice> devicesUsed() {
    List<GpuDevice> used = new ArrayList<>(List.of(device));
    used.addAll(helpers);
    return used;
  }

  /** The device this task runs on, all its device work: chosen when the task first needed one. */
  public GpuDevice device() {
    return device;
  }

  public Backend backend() {
    return device.backend();
  }

  public DeviceStream stream() {
    return stream;
  }

  /** Arrow memory (pinned with CUDA) for the task's uploads and downloads; closed when the task completes. */
  public BufferAllocator hostAllocator() {
    return hostAllocator;
  }
}
