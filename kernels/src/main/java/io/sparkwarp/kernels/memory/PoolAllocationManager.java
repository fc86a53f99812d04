package io.sparkwarp.kernels.memory;

import org.apache.arrow.memory.AllocationManager;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ReferenceManager;
import org.apache.arrow.memory.RootAllocator;

/**
 * Arrow memory carved from a {@link HostMemoryPool}: with the CUDA backend it is pinned, so Arrow vectors built on
 * the host are DMA-ready and upload or download without a staging copy.
 */
final class PoolAllocationManager extends AllocationManager {
  private final HostBlock block;
  /** The size Arrow asked for and accounts; the block may be larger (pool alignment). */
  private final long size;

  private PoolAllocationManager(BufferAllocator accountingAllocator, HostBlock block, long size) {
    super(accountingAllocator);
    this.block = block;
    this.size = size;
  }

  @Override
  public long getSize() {
    return size;
  }

  @Override
  protected long memoryAddress() {
    return block.address();
  }

  @Override
  protected void release0() {
    block.close();
  }

  /** Creates managers over one pool; owns a tiny block that backs Arrow's empty buffer. */
  static final class Factory implements AllocationManager.Factory {
    private final HostMemoryPool pool;
    private final ArrowBuf empty;

    Factory(HostMemoryPool pool) {
      this.pool = pool;
      this.empty = new ArrowBuf(ReferenceManager.NO_OP, null, 0, pool.allocate(0).address());
    }

    @Override
    public AllocationManager create(BufferAllocator accountingAllocator, long size) {
      return new PoolAllocationManager(accountingAllocator, pool.allocate(size), size);
    }

    @Override
    public ArrowBuf empty() {
      return empty;
    }
  }

  /**
   * A root Arrow allocator whose every buffer lives in {@code pool}.
   *
   * @param limit bytes the allocator may hand out; Arrow enforces it
   */
  static RootAllocator rootAllocator(HostMemoryPool pool, long limit) {
    return new RootAllocator(RootAllocator.configBuilder()
        .allocationManagerFactory(new Factory(pool))
        .maxAllocation(limit)
        .build());
  }
}
