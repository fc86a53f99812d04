package io.sparkwarp.kernels.batch;

import io.sparkwarp.kernels.Closeables;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/** Columns of equal row count on the device: the unit GPU operators consume and produce. Owns its columns. */
public final class DeviceBatch implements AutoCloseable {
  private final List<DeviceColumn> columns;
  private final int rowCount;
  private final AtomicBoolean closed = new AtomicBoolean();

  public DeviceBatch(List<DeviceColumn> columns, int rowCount) {
    for (DeviceColumn c : columns) {
      if (c.rowCount() != rowCount) {
        throw new IllegalArgumentException("column of " + c.rowCount() + " rows in a batch of " + rowCount);
      }
    }
    this.columns = List.copyOf(columns);
    this.rowCount = rowCount;
  }

  public int rowCount() {
    return rowCount;
  }

  public int columnCount() {
    return columns.size();
  }

  public DeviceColumn column(int i) {
    return columns.get(i);
  }

  public List<DeviceColumn> columns() {
    return columns;
  }

  /** Device bytes held by all columns. */
  public long deviceBytes() {
    return columns.stream().mapToLong(DeviceColumn::deviceBytes).sum();
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) Closeables.closeAll(columns);
  }
}
