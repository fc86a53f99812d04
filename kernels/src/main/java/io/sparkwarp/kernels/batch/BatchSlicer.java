package io.sparkwarp.kernels.batch;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.HostBlock;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.util.MemoryUtil;

/** Copies a range of rows of a device batch into a new batch, on the device. */
public final class BatchSlicer {
  private BatchSlicer() {}

  /**
   * Rows [start, start + length) of {@code batch} as a new batch the caller owns. Variable-width columns need their
   * byte range on the host to size the copy: all of them are read back in one small transfer and one synchronise.
   */
  public static DeviceBatch slice(Backend backend, DeviceBatch batch, int start, int length, DeviceStream stream) {
    if (start < 0 || length < 0 || (long) start + length > batch.rowCount()) {
      throw new IndexOutOfBoundsException("rows [" + start + ", " + ((long) start + length) + ") of a batch of "
          + batch.rowCount());
    }
    long[][] byteStart = new long[1][batch.columnCount()];
    long[][] byteEnd = new long[1][batch.columnCount()];
    readByteRanges(backend, batch, new int[] {start}, new int[] {length}, byteStart, byteEnd, stream);
    List<DeviceColumn> columns = new ArrayList<>();
    try {
      for (int i = 0; i < batch.columnCount(); i++) {
        columns.add(sliceColumn(backend, batch.column(i), start, length, byteStart[0][i], byteEnd[0][i], stream));
      }
      return new DeviceBatch(columns, length);
    } catch (RuntimeException e) {
      Closeables.closeAll(columns);
      throw e;
    }
  }

  /**
   * Rows [starts[r], starts[r] + lengths[r]) of {@code batch}, for each r, as ranges to
   * {@link BatchConcatenator#concatRanges}: the byte bounds of their variable-width values read back in one small
   * transfer and one synchronise. The batch stays the caller's.
   */
  public static List<BatchRange> ranges(Backend backend, DeviceBatch batch, int[] starts, int[] lengths,
      DeviceStream stream) {
    long[][] byteStart = new long[starts.length][batch.columnCount()];
    long[][] byteEnd = new long[starts.length][batch.columnCount()];
    readByteRanges(backend, batch, starts, lengths, byteStart, byteEnd, stream);
    List<BatchRange> ranges = new ArrayList<>();
    for (int r = 0; r < starts.length; r++) {
      ranges.add(new BatchRange(batch, starts[r], lengths[r], byteStart[r], byteEnd[r]));
    }
    return ranges;
  }

  /** offsets[starts[r]] and offsets[starts[r] + lengths[r]] of every variable-width column, for every range r. */
  private static void readByteRanges(Backend backend, DeviceBatch batch, int[] starts, int[] lengths,
      long[][] byteStart, long[][] byteEnd, DeviceStream stream) {
    int[] bounds = new int[2 * starts.length];
    for (int r = 0; r < starts.length; r++) {
      bounds[2 * r] = starts[r];
      bounds[2 * r + 1] = starts[r] + lengths[r];
    }
    long[][] offsets = offsetsAt(backend, batch, bounds, stream);
    for (int i = 0; i < batch.columnCount(); i++) {
      if (offsets[i] == null) continue;
      for (int r = 0; r < starts.length; r++) {
        byteStart[r][i] = offsets[i][2 * r];
        byteEnd[r][i] = offsets[i][2 * r + 1];
      }
    }
  }

  /**
   * [c][k] = offsets[rows[k]] of each variable-width column c of {@code batch} (null for the other columns): where
   * row rows[k] starts in its bytes, read back in one small transfer and one synchronise (none without such columns).
   */
  public static long[][] offsetsAt(Backend backend, DeviceBatch batch, int[] rows, DeviceStream stream) {
    long[][] result = new long[batch.columnCount()][];
    int variable = (int) batch.columns().stream().filter(c -> c.type().isVariableWidth()).count();
    if (variable == 0 || rows.length == 0) return result;
    try (HostBlock host = backend.transferMemory().pool().allocate(4L * variable * rows.length)) {
      long at = host.address();
      for (DeviceColumn c : batch.columns()) {
        if (!c.type().isVariableWidth()) continue;
        for (int row : rows) {
          backend.copyDeviceToHost(c.offsets(), 4L * row, at, 4, stream);
          at += 4;
        }
      }
      stream.synchronize();
      at = host.address();
      for (int i = 0; i < batch.columnCount(); i++) {
        if (!batch.column(i).type().isVariableWidth()) continue;
        result[i] = new long[rows.length];
        for (int k = 0; k < rows.length; k++, at += 4) result[i][k] = MemoryUtil.getInt(at);
      }
    }
    return result;
  }

  private static DeviceColumn sliceColumn(Backend backend, DeviceColumn src, int start, int length, long byteStart,
      long byteEnd, DeviceStream stream) {
    DeviceType type = src.type();
    DeviceColumn dst = DeviceColumn.allocate(backend, type, length, byteEnd - byteStart, stream);
    try {
      backend.batchPrimitives().copyBits(src.validity(), start, dst.validity(), 0, length, stream);
      if (type.isVariableWidth()) {
        backend.batchPrimitives().rebaseOffsets(src.offsets(), start, length + 1L, dst.offsets(), 0, 0, stream);
        backend.copyDeviceToDevice(src.data(), byteStart, dst.data(), 0, byteEnd - byteStart, stream);
      } else if (type.isBitPacked()) {
        backend.batchPrimitives().copyBits(src.data(), start, dst.data(), 0, length, stream);
      } else {
        backend.copyDeviceToDevice(src.data(), (long) start * type.width(), dst.data(), 0, dst.dataBytes(), stream);
      }
      return dst;
    } catch (RuntimeException e) {
      dst.close();
      throw e;
    }
  }
}
