package io.sparkwarp.kernels.memory;

import io.sparkwarp.kernels.DeviceStream;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One device allocation. The buffer is freed on the stream it was allocated on, after the work issued there, so a
 * buffer used on another stream must be synchronised before it is closed. Closing is idempotent.
 */
public final class DeviceBuffer implements AutoCloseable {
  private final DeviceMemory owner;
  private final long address;
  /** Bytes the caller asked for. */
  private final long size;
  /** Bytes actually held: the size padded to whole 8-byte words, so word-wise kernels may read the last word. */
  private final long paddedSize;
  private final DeviceStream stream;
  /** The task that allocated it, for per-task accounting; {@link DeviceMemory#NO_TASK} outside tasks. */
  private final long taskId;
  private final AtomicBoolean closed = new AtomicBoolean();

  DeviceBuffer(DeviceMemory owner, long address, long size, long paddedSize, DeviceStream stream, long taskId) {
    this.owner = owner;
    this.address = address;
    this.size = size;
    this.paddedSize = paddedSize;
    this.stream = stream;
    this.taskId = taskId;
  }

  /** Device address of the first byte. */
  public long address() {
    if (closed.get()) throw new IllegalStateException("device buffer used after close");
    return address;
  }

  public long size() {
    return size;
  }

  /** The address without the use-after-close check, for freeing. */
  long rawAddress() {
    return address;
  }

  long paddedSize() {
    return paddedSize;
  }

  long taskId() {
    return taskId;
  }

  DeviceStream stream() {
    return stream;
  }

  /** Throws unless [offset, offset + bytes) lies inside this buffer. */
  public void checkRange(long offset, long bytes) {
    if (offset < 0 || bytes < 0 || offset + bytes > size) {
      throw new IndexOutOfBoundsException("range [" + offset + ", " + (offset + bytes) + ") outside a device buffer of "
          + size + " bytes");
    }
  }

  /** Whether this buffer was allocated from {@code memory}: peer copies check each side is its backend's. */
  public boolean isOf(DeviceMemory memory) {
    return owner == memory;
  }

  public boolean isClosed() {
    return closed.get();
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) owner.release(this);
  }

  @Override
  public String toString() {
    return "DeviceBuffer[" + size + " bytes at 0x" + Long.toHexString(address) + ", task " + taskId + "]";
  }
}
