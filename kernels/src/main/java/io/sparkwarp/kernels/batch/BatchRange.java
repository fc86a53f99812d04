package io.sparkwarp.kernels.batch;

/**
 * Rows [from, from + rows) of a device batch, and for each variable-width column the bytes those rows' values take
 * in its data ([dataFrom[c], dataTo[c]); 0 for other columns): known on the host, so that a concatenation copies
 * them without reading offsets back from the device.
 */
public record BatchRange(DeviceBatch batch, int from, int rows, long[] dataFrom, long[] dataTo) {
  public BatchRange {
    if (from < 0 || rows < 0 || (long) from + rows > batch.rowCount()) {
      throw new IllegalArgumentException("rows [" + from + ", " + ((long) from + rows) + ") of a batch of "
          + batch.rowCount());
    }
    if (dataFrom.length != batch.columnCount() || dataTo.length != batch.columnCount()) {
      throw new IllegalArgumentException("data bounds for " + dataFrom.length + " and " + dataTo.length
          + " columns of a batch of " + batch.columnCount());
    }
  }

  /** Every row of {@code batch} (whose string offsets start at 0, as every device column's do). */
  public static BatchRange whole(DeviceBatch batch) {
    long[] to = new long[batch.columnCount()];
    for (int c = 0; c < to.length; c++) {
      if (batch.column(c).type().isVariableWidth()) to[c] = batch.column(c).dataBytes();
    }
    return new BatchRange(batch, 0, batch.rowCount(), new long[to.length], to);
  }

  /** Bytes of column {@code c}'s data these rows take (variable-width columns; 0 for the others). */
  public long dataBytes(int c) {
    return dataTo[c] - dataFrom[c];
  }

  /** Device memory a batch of these rows takes ({@link DeviceBatch#deviceBytes} of their concatenation). */
  public long deviceBytes() {
    long bytes = 0;
    for (int c = 0; c < batch.columnCount(); c++) {
      DeviceType type = batch.column(c).type();
      bytes += (rows + 7) / 8 + (type.isVariableWidth() ? 4L * (rows + 1) + dataBytes(c) : type.valueBytes(rows));
    }
    return bytes;
  }
}
