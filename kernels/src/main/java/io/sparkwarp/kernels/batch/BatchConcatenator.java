package io.sparkwarp.kernels.batch;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import java.util.ArrayList;
import java.util.List;

/** Joins device batches of one schema end to end into a new batch, on the device, without reading anything back. */
public final class BatchConcatenator {
  private BatchConcatenator() {}

  /**
   * The rows of {@code batches}, in order, as one new batch the caller owns; the inputs stay open.
   *
   * @throws IllegalArgumentException when the batches' column types differ, or the result would pass the int32
   *     limits of Arrow (rows, or bytes of one string column)
   */
  public static DeviceBatch concat(Backend backend, List<DeviceBatch> batches, DeviceStream stream) {
    if (batches.isEmpty()) throw new IllegalArgumentException("nothing to concatenate");
    DeviceBatch first = batches.get(0);
    long rows = 0;
    for (DeviceBatch b : batches) {
      if (b.columnCount() != first.columnCount()) {
        throw new IllegalArgumentException("batches of " + first.columnCount() + " and " + b.columnCount() + " columns");
      }
      for (int i = 0; i < b.columnCount(); i++) {
        if (!b.column(i).type().equals(first.column(i).type())) {
          throw new IllegalArgumentException("column " + i + " is " + first.column(i).type() + " in one batch and "
              + b.column(i).type() + " in another");
        }
      }
      rows += b.rowCount();
    }
    if (rows > Integer.MAX_VALUE) throw new IllegalArgumentException(rows + " rows do not fit one batch");
    List<DeviceColumn> columns = new ArrayList<>();
    try {
      for (int i = 0; i < first.columnCount(); i++) columns.add(concatColumn(backend, batches, i, (int) rows, stream));
      return new DeviceBatch(columns, (int) rows);
    } catch (RuntimeException e) {
      Closeables.closeAll(columns);
      throw e;
    }
  }

  private static DeviceColumn concatColumn(Backend backend, List<DeviceBatch> batches, int index, int rows,
      DeviceStream stream) {
    DeviceType type = batches.get(0).column(index).type();
    long bytes = 0;
    for (DeviceBatch b : batches) bytes += b.column(index).dataBytes();
    if (type.isVariableWidth() && bytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(bytes + " bytes of " + type + " do not fit int32 offsets in one batch");
    }
    DeviceColumn dst = DeviceColumn.allocate(backend, type, rows, bytes, stream);
    try {
      long row = 0;
      long byteOffset = 0;
      for (DeviceBatch b : batches) {
        DeviceColumn src = b.column(index);
        int n = src.rowCount();
        backend.batchPrimitives().copyBits(src.validity(), 0, dst.validity(), row, n, stream);
        if (type.isVariableWidth()) {
          // n + 1 offsets: the last one equals the next input's first, written again by it
          backend.batchPrimitives().rebaseOffsets(src.offsets(), 0, n + 1L, dst.offsets(), row, (int) byteOffset,
              stream);
          backend.copyDeviceToDevice(src.data(), 0, dst.data(), byteOffset, src.dataBytes(), stream);
        } else if (type.isBitPacked()) {
          backend.batchPrimitives().copyBits(src.data(), 0, dst.data(), row, n, stream);
        } else {
          backend.copyDeviceToDevice(src.data(), 0, dst.data(), row * type.width(), src.dataBytes(), stream);
        }
        row += n;
        byteOffset += src.dataBytes();
      }
      return dst;
    } catch (RuntimeException e) {
      dst.close();
      throw e;
    }
  }
}
