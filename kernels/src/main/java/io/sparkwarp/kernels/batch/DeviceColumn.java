package io.sparkwarp.kernels.batch;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * One column on the device in Arrow layout. Invariants: the validity bitmap is always present (bit set = valid);
 * variable-width columns have {@code rowCount + 1} int32 offsets starting at 0, so {@code dataBytes} is the last
 * offset; fixed-width values are packed without gaps. The column owns its buffers.
 */
public final class DeviceColumn implements AutoCloseable {
  private final DeviceType type;
  private final int rowCount;
  private final DeviceBuffer validity;
  /** int32 offsets of variable-width columns; null otherwise. */
  private final DeviceBuffer offsets;
  private final DeviceBuffer data;
  /** Bytes of values: for variable width the total string bytes, else {@code type.valueBytes(rowCount)}. */
  private final long dataBytes;
  private final AtomicBoolean closed = new AtomicBoolean();

  public DeviceColumn(DeviceType type, int rowCount, DeviceBuffer validity, DeviceBuffer offsets, DeviceBuffer data,
      long dataBytes) {
    if ((offsets != null) != type.isVariableWidth()) {
      throw new IllegalArgumentException(type + " column " + (offsets == null ? "needs" : "takes no") + " offsets");
    }
    this.type = type;
    this.rowCount = rowCount;
    this.validity = validity;
    this.offsets = offsets;
    this.data = data;
    this.dataBytes = dataBytes;
  }

  /**
   * Allocates an uninitialised column of {@code rowCount} rows ({@code dataBytes} only matters for variable width).
   * Nothing is leaked if an allocation fails.
   */
  public static DeviceColumn allocate(Backend backend, DeviceType type, int rowCount, long dataBytes,
      DeviceStream stream) {
    long valueBytes = type.isVariableWidth() ? dataBytes : type.valueBytes(rowCount);
    DeviceBuffer validity = null;
    DeviceBuffer offsets = null;
    try {
      validity = backend.allocate((rowCount + 7) / 8, stream);
      if (type.isVariableWidth()) offsets = backend.allocate(4L * (rowCount + 1), stream);
      DeviceBuffer data = backend.allocate(valueBytes, stream);
      return new DeviceColumn(type, rowCount, validity, offsets, data, valueBytes);
    } catch (RuntimeException e) {
      if (validity != null) validity.close();
      if (offsets != null) offsets.close();
      throw e;
    }
  }

  /**
   * A column of {@code rowCount} nulls: validity, values (and offsets, so every string is empty) zeroed on the device,
   * nothing crossing PCIe.
   */
  public static DeviceColumn nulls(Backend backend, DeviceType type, int rowCount, DeviceStream stream) {
    DeviceColumn column = allocate(backend, type, rowCount, 0, stream);
    try {
      backend.fill(column.validity, 0, column.validity.size(), (byte) 0, stream);
      if (column.offsets != null) backend.fill(column.offsets, 0, column.offsets.size(), (byte) 0, stream);
      backend.fill(column.data, 0, column.data.size(), (byte) 0, stream);
      return column;
    } catch (RuntimeException e) {
      column.close();
      throw e;
    }
  }

  public DeviceType type() {
    return type;
  }

  public int rowCount() {
    return rowCount;
  }

  /** Arrow validity bitmap, ceil(rowCount / 8) bytes. */
  public DeviceBuffer validity() {
    return validity;
  }

  /** Offsets of a variable-width column. */
  public DeviceBuffer offsets() {
    if (offsets == null) throw new IllegalStateException(type + " column has no offsets");
    return offsets;
  }

  public DeviceBuffer data() {
    return data;
  }

  public long dataBytes() {
    return dataBytes;
  }

  /** Device bytes this column holds. */
  public long deviceBytes() {
    return validity.size() + (offsets == null ? 0 : offsets.size()) + data.size();
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      validity.close();
      if (offsets != null) offsets.close();
      data.close();
    }
  }
}
