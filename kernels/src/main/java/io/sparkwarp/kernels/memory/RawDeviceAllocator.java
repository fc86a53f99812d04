package io.sparkwarp.kernels.memory;

import io.sparkwarp.kernels.DeviceStream;

/** Where device bytes come from: a CUDA memory pool, or plain native memory for the host backend. */
public interface RawDeviceAllocator {
  /**
   * Allocates {@code bytes} (> 0) ordered on {@code stream}.
   *
   * @throws DeviceOutOfMemoryException when the device has no room
   */
  long allocate(long bytes, DeviceStream stream);

  /** Returns an allocation, ordered on {@code stream} after the work already issued there. */
  void free(long address, long bytes, DeviceStream stream);

  /** Total bytes of the device, for the default limit; {@code Long.MAX_VALUE} when it has no fixed size. */
  long deviceBytes();
}
