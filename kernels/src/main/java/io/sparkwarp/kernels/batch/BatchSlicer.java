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
    int variable = (int) batch.columns().stream().filter(c -> c.type().isVariableWidth()).count();
    if (variable == 0 || starts.length == 0) return;
    try (HostBlock host = backend.transferMemory().pool().allocate(8L * variable * starts.length)) {
      long at = host.address();
      for (int r = 0; r < starts.length; r++) {
        for (DeviceColumn c : batch.columns()) {
          if (!c.type().isVariableWidth()) continue;
          backend.copyDeviceToHost(c.offsets(), 4L * starts[r], at, 4, stream);
          backend.copyDeviceToHost(c.offsets(), 4L * (starts[r] + lengths[r]), at + 4, 4, stream);
          at += 8;
        }
      }
      stream.synchronize();
      at = host.address();
      for (int r = 0; r < starts.length; r++) {
        for (int i = 0; i < batch.columnCount(); i++) {
          if (!batch.column(i).type().isVariableWidth()) continue;
          byteStart[r][i] = MemoryUtil.getInt(at);
          byteEnd[r][i] = MemoryUtil.getInt(at + 4);
          at += 8;
        }
      }
    }
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
