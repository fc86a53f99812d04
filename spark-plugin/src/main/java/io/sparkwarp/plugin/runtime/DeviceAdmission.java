package io.sparkwarp.plugin.runtime;

import io.sparkwarp.kernels.memory.DeviceMemory;
import java.util.HashSet;
import java.util.Set;

/**
 * Which tasks may do device work now, decided by device memory rather than a fixed count: a task is admitted when
 * the memory committed to the tasks already admitted (each at least {@code taskReserve}, more once it holds more)
 * plus its own reserve fits the device's limit; otherwise it waits until a task leaves or frees memory. The first
 * task is always admitted, so a reserve larger than the device cannot stall an executor. An optional cap bounds the
 * count as well. Tasks doing host work (decoding, gathering rows) are not admitted and hold nothing.
 */
final class DeviceAdmission {
  /** How often a waiting task looks again: memory freed inside a running task does not wake it. */
  private static final long RECHECK_MILLIS = 20;

  private final DeviceMemory memory;
  private final long taskReserve;
  private final int maxTasks;
  private final Set<Long> admitted = new HashSet<>();

  /** @param maxTasks the most tasks admitted at once; 0 for no bound but memory */
  DeviceAdmission(DeviceMemory memory, long taskReserve, int maxTasks) {
    this.memory = memory;
    this.taskReserve = taskReserve;
    this.maxTasks = maxTasks;
  }

  /** Waits until {@code taskId} fits, then admits it. */
  synchronized void admit(long taskId) {
    boolean interrupted = false;
    while (!fits()) {
      try {
        wait(RECHECK_MILLIS);
      } catch (InterruptedException e) {
        interrupted = true;  // a task being killed still needs a consistent count; its thread learns below
      }
    }
    admitted.add(taskId);
    if (interrupted) Thread.currentThread().interrupt();
  }

  /**
   * Admits {@code taskId} if it fits within {@code millis}; returns whether it did. For a task that holds another
   * device already: waiting on this one without bound could wait on a task doing the same the other way.
   */
  synchronized boolean tryAdmit(long taskId, long millis) {
    long deadline = System.nanoTime() + millis * 1_000_000;
    while (!fits()) {
      long left = (deadline - System.nanoTime()) / 1_000_000;
      if (left <= 0) return false;
      try {
        wait(Math.min(left, RECHECK_MILLIS));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    admitted.add(taskId);
    return true;
  }

  synchronized void leave(long taskId) {
    if (admitted.remove(taskId)) notifyAll();
  }

  synchronized int admittedCount() {
    return admitted.size();
  }

  private boolean fits() {
    if (admitted.isEmpty()) return true;
    if (maxTasks > 0 && admitted.size() >= maxTasks) return false;
    long held = 0;
    long committed = 0;
    for (long task : admitted) {
      long bytes = memory.bytesInUse(task);
      held += bytes;
      committed += Math.max(taskReserve, bytes);
    }
    long shared = Math.max(0, memory.bytesInUse() - held);  // broadcast builds, and tasks finishing their frees
    return committed + shared + taskReserve <= memory.limit();
  }
}
