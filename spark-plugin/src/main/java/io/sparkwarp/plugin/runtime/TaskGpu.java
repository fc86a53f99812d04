package io.sparkwarp.plugin.runtime;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceMemory;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.spark.TaskContext;
import org.apache.spark.util.TaskCompletionListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One task's hold on the GPU, taken at its first device work and given back when the task completes: a place
 * among the executor's concurrent GPU tasks, its own stream, its memory accounting, and an Arrow allocator over
 * pinned memory for its transfers. At completion it reports any device memory the task left allocated.
 */
public final class TaskGpu {
  private static final Logger LOG = LoggerFactory.getLogger(TaskGpu.class);
  private static final Map<Long, TaskGpu> BY_TASK = new ConcurrentHashMap<>();

  private final Backend backend;
  private final DeviceStream stream;
  private final BufferAllocator hostAllocator;

  private TaskGpu(Backend backend, long taskId) {
    this.backend = backend;
    this.stream = backend.newStream();
    this.hostAllocator = backend.transferMemory().arrowAllocator()
        .newChildAllocator("task " + taskId, 0, Long.MAX_VALUE);
  }

  /** The current task's hold, taken (waiting for a place on the GPU) on first use. */
  public static TaskGpu get() {
    TaskContext task = TaskContext.get();
    if (task == null) throw new IllegalStateException("GPU work outside a Spark task");
    long id = task.taskAttemptId();
    TaskGpu existing = BY_TASK.get(id);
    if (existing != null) return existing;
    GpuRuntime runtime = GpuRuntime.get();
    runtime.gpuTasks().acquireUninterruptibly();
    DeviceMemory.TaskScope scope = runtime.backend().deviceMemory().enterTask(id);
    TaskGpu gpu;
    try {
      gpu = new TaskGpu(runtime.backend(), id);
    } catch (RuntimeException e) {
      scope.close();
      runtime.gpuTasks().release();
      throw e;
    }
    BY_TASK.put(id, gpu);
    task.addTaskCompletionListener((TaskCompletionListener) ctx -> {
      try {
        gpu.release(id);
      } finally {
        scope.close();
        runtime.gpuTasks().release();
      }
    });
    return gpu;
  }

  private void release(long taskId) {
    BY_TASK.remove(taskId);
    stream.close();
    long leaked = backend.deviceMemory().finishTask(taskId);
    if (leaked > 0) LOG.error("sparkwarp: task {} left {} bytes of device memory allocated", taskId, leaked);
    hostAllocator.close();
  }

  public Backend backend() {
    return backend;
  }

  public DeviceStream stream() {
    return stream;
  }

  /** Arrow memory (pinned with CUDA) for the task's uploads and downloads; closed when the task completes. */
  public BufferAllocator hostAllocator() {
    return hostAllocator;
  }
}
