package io.sparkwarp.plugin.runtime;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;

/**
 * One GPU of the executor (or one the host backend simulates): its backend (context, memory pools, kernels), the
 * admission of tasks to it by its own memory, and the stream for device data its tasks share (broadcast builds).
 */
public final class GpuDevice {
  private final int index;
  private final Backend backend;
  private final DeviceAdmission admission;
  private final DeviceStream sharedStream;
  /** Tasks placed on this device and not yet finished. */
  private int tasks;

  GpuDevice(int index, Backend backend, long taskReserve, int maxTasks) {
    this.index = index;
    this.backend = backend;
    this.admission = new DeviceAdmission(backend.deviceMemory(), taskReserve, maxTasks);
    this.sharedStream = backend.newStream();
  }

  /** Its position among the executor's devices (0 to count - 1), not the CUDA ordinal. */
  public int index() {
    return index;
  }

  public Backend backend() {
    return backend;
  }

  /** The stream device data shared across tasks is made and freed on: it must outlive every task stream. */
  public DeviceStream sharedStream() {
    return sharedStream;
  }

  DeviceAdmission admission() {
    return admission;
  }

  synchronized int tasks() {
    return tasks;
  }

  synchronized void taskPlaced() {
    tasks++;
  }

  synchronized void taskFinished() {
    tasks--;
  }

  void close() {
    try {
      sharedStream.close();
    } finally {
      backend.close();
    }
  }
}
