package io.sparkwarp.kernels.memory;

import java.util.concurrent.atomic.AtomicBoolean;

/** A piece of transfer memory from a {@link HostMemoryPool}; closing returns it to the pool (idempotent). */
public final class HostBlock implements AutoCloseable {
  private final HostMemoryPool pool;
  private final long address;
  private final long size;
  private final AtomicBoolean closed = new AtomicBoolean();

  HostBlock(HostMemoryPool pool, long address, long size) {
    this.pool = pool;
    this.address = address;
    this.size = size;
  }

  public long address() {
    if (closed.get()) throw new IllegalStateException("host block used after close");
    return address;
  }

  /** Usable bytes: at least the request rounded up to the pool's alignment (a large block: its whole region). */
  public long size() {
    return size;
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) pool.free(address, size);
  }
}
