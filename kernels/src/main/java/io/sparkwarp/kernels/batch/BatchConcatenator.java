package io.sparkwarp.kernels.batch;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Joins device batches of one schema, or row ranges of them, end to end into a new batch, on the device, without
 * reading anything back.
 */
public final class BatchConcatenator {
  private BatchConcatenator() {}

  /**
   * The rows of {@code batches}, in order, as one new batch the caller owns; the inputs stay open.
   *
   * @throws IllegalArgumentException when the batches' column types differ, or the result would pass the int32
   *     limits of Arrow (rows, or bytes of one string column)
   */
  public static DeviceBatch concat(Backend backend, List<DeviceBatch> batches, DeviceStream stream) {
    return concatRanges(backend, batches.stream().map(BatchRange::whole).toList(), stream);
  }

  /**
   * The rows of {@code ranges}, in order, as one new batch the caller owns; their batches stay open.
   *
   * @throws IllegalArgumentException as {@link #concat}
   */
  public static DeviceBatch concatRanges(Backend backend, List<BatchRange> ranges, DeviceStream stream) {
    if (ranges.isEmpty()) throw new IllegalArgumentException("nothing to concatenate");
    DeviceBatch first = ranges.get(0).batch();
    long rows = 0;
    for (BatchRange r : ranges) {
      DeviceBatch b = r.batch();
      if (b.columnCount() != first.columnCount()) {
        throw new IllegalArgumentException("batches of " + first.columnCount() + " and " + b.columnCount() + " columns");
      }
      for (int i = 0; i < b.columnCount(); i++) {
        if (!b.column(i).type().equals(first.column(i).type())) {
          throw new IllegalArgumentException("column " + i + " is " + first.column(i).type() + " in one batch and "
              + b.column(i).type() + " in another");
        }
      }
      rows += r.rows();
    }
    if (rows > Integer.MAX_VALUE) throw new IllegalArgumentException(rows + " rows do not fit one batch");
    List<DeviceColumn> columns = new ArrayList<>();
    try {
      for (int i = 0; i < first.columnCount(); i++) columns.add(concatColumn(backend, ranges, i, (int) rows, stream));
      return new DeviceBatch(columns, (int) rows);
    } catch (RuntimeException e) {
      Closeables.closeAll(columns);
      throw e;
    }
  }

  private static DeviceColumn concatColumn(Backend backend, List<BatchRange> ranges, int index, int rows,
      DeviceStream stream) {
    DeviceType type = ranges.get(0).batch().column(index).type();
    long bytes = 0;
    for (BatchRange r : ranges) bytes += type.isVariableWidth() ? r.dataBytes(index) : type.valueBytes(r.rows());
    if (type.isVariableWidth() && bytes > Integer.MAX_VALUE) {
      throw new IllegalArgumentException(bytes + " bytes of " + type + " do not fit int32 offsets in one batch");
    }
    DeviceColumn dst = DeviceColumn.allocate(backend, type, rows, bytes, stream);
    try {
      long row = 0;
      long byteOffset = 0;
      for (BatchRange r : ranges) {
        DeviceColumn src = r.batch().column(index);
        int n = r.rows();
        backend.batchPrimitives().copyBits(src.validity(), r.from(), dst.validity(), row, n, stream);
        if (type.isVariableWidth()) {
          // n + 1 offsets: the last one equals the next range's first, written again by it
          backend.batchPrimitives().rebaseOffsets(src.offsets(), r.from(), n + 1L, dst.offsets(), row,
              (int) byteOffset, stream);
          backend.copyDeviceToDevice(src.data(), r.dataFrom()[index], dst.data(), byteOffset, r.dataBytes(index),
              stream);
          byteOffset += r.dataBytes(index);
        } else if (type.isBitPacked()) {
          backend.batchPrimitives().copyBits(src.data(), r.from(), dst.data(), row, n, stream);
        } else {
          backend.copyDeviceToDevice(src.data(), (long) r.from() * type.width(), dst.data(), row * type.width(),
              (long) n * type.width(), stream);
        }
        row += n;
      }
      return dst;
    } catch (RuntimeException e) {
      dst.close();
      throw e;
    }
  }
}
