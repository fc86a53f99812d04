package io.sparkwarp.kernels.memory;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/**
 * A backend's host side of transfers: the pool of (pinned) host memory and the Arrow allocator over it. Vectors
 * allocated from {@link #arrowAllocator()} (or its children) are copied to and from the device directly.
 */
public final class TransferMemory implements AutoCloseable {
  private final HostMemoryPool pool;
  private final RootAllocator arrowAllocator;

  public TransferMemory(RawHostAllocator raw, long slabBytes, long limit) {
    this.pool = new HostMemoryPool(raw, slabBytes, limit);
    this.arrowAllocator = PoolAllocationManager.rootAllocator(pool, limit > 0 ? limit : Long.MAX_VALUE);
  }

  public HostMemoryPool pool() {
    return pool;
  }

  /** The root of every Arrow allocator whose vectors cross to the device; make a child per task or operator. */
  public BufferAllocator arrowAllocator() {
    return arrowAllocator;
  }

  /** Closes the Arrow allocator (which reports Arrow buffers still open) and gives the pool back. */
  @Override
  public void close() {
    try {
      arrowAllocator.close();
    } finally {
      pool.close();
    }
  }
}
