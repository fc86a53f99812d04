package io.sparkwarp.kernels;

/**
 * Sizes a backend is opened with.
 *
 * @param deviceOrdinal which GPU (CUDA ordinal); ignored by the host backend
 * @param deviceMemoryLimit bytes of device memory queries may hold at once; 0 means 90% of the device's memory
 *     (cuda) or unlimited (host)
 * @param pinnedMemoryLimit bytes of pinned host memory the transfer pool may hold; 0 means unlimited
 * @param pinnedSlabBytes size of one pinned slab that small host buffers are carved from
 */
public record BackendOptions(int deviceOrdinal, long deviceMemoryLimit, long pinnedMemoryLimit, long pinnedSlabBytes) {
  public static final long DEFAULT_PINNED_SLAB = 64L << 20;

  public BackendOptions {
    if (deviceOrdinal < 0) throw new IllegalArgumentException("device ordinal must be >= 0, not " + deviceOrdinal);
    if (deviceMemoryLimit < 0) throw new IllegalArgumentException("device memory limit must be >= 0");
    if (pinnedMemoryLimit < 0) throw new IllegalArgumentException("pinned memory limit must be >= 0");
    if (pinnedSlabBytes < 4096) throw new IllegalArgumentException("pinned slab must be at least 4096 bytes");
  }

  /** Device 0, default limits. */
  public static BackendOptions defaults() {
    return new BackendOptions(0, 0, 0, DEFAULT_PINNED_SLAB);
  }

  public BackendOptions withDevice(int ordinal) {
    return new BackendOptions(ordinal, deviceMemoryLimit, pinnedMemoryLimit, pinnedSlabBytes);
  }

  public BackendOptions withDeviceMemoryLimit(long bytes) {
    return new BackendOptions(deviceOrdinal, bytes, pinnedMemoryLimit, pinnedSlabBytes);
  }

  public BackendOptions withPinnedMemoryLimit(long bytes) {
    return new BackendOptions(deviceOrdinal, deviceMemoryLimit, bytes, pinnedSlabBytes);
  }
}
