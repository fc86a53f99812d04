package io.sparkwarp.kernels.memory;

/** Where host transfer memory comes from: page-locked CUDA memory, or plain native memory for the host backend. */
public interface RawHostAllocator {
  /** Allocates {@code bytes} (> 0), aligned to at least 64; throws {@link OutOfMemoryError} when there is none. */
  long allocate(long bytes);

  void free(long address, long bytes);

  /** Whether the memory is page-locked, so the GPU's copy engines read and write it directly. */
  boolean pinned();
}
