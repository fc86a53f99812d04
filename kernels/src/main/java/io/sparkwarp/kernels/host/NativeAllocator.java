package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.RawDeviceAllocator;
import io.sparkwarp.kernels.memory.RawHostAllocator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Plain native memory: the host backend's "device" memory and its (unpinned) transfer memory. Aligned to 256 bytes
 * like CUDA's allocations (malloc gives 16), so alignment bugs show up on the host backend too.
 */
final class NativeAllocator implements RawDeviceAllocator, RawHostAllocator {
  private static final long ALIGNMENT = 256;

  /** Aligned address handed out to the address malloc returned. */
  private final Map<Long, Long> rawAddresses = new ConcurrentHashMap<>();

  @Override
  public long allocate(long bytes, DeviceStream stream) {
    return allocate(bytes);
  }

  @Override
  public long allocate(long bytes) {
    long raw = MemoryUtil.allocateMemory(bytes + ALIGNMENT - 1);
    long aligned = (raw + ALIGNMENT - 1) & -ALIGNMENT;
    rawAddresses.put(aligned, raw);
    return aligned;
  }

  @Override
  public void free(long address, long bytes, DeviceStream stream) {
    free(address, bytes);
  }

  @Override
  public void free(long address, long bytes) {
    MemoryUtil.freeMemory(rawAddresses.remove(address));
  }

  @Override
  public long deviceBytes() {
    return Long.MAX_VALUE;
  }

  @Override
  public boolean pinned() {
    return false;
  }
}
