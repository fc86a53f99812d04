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
    long[] byteStart = new long[batch.columnCount()];
    long[] byteEnd = new long[batch.columnCount()];
    readByteRanges(backend, batch, start, length, byteStart, byteEnd, stream);
    List<DeviceColumn> columns = new ArrayList<>();
    try {
      for (int i = 0; i < batch.columnCount(); i++) {
        columns.add(sliceColumn(backend, batch.column(i), start, length, byteStart[i], byteEnd[i], stream));
      }
      return new DeviceBatch(columns, length);
    } catch (RuntimeException e) {
      Closeables.closeAll(columns);
      throw e;
    }
  }

  /** offsets[start] and offsets[start + length] of every variable-width column. */
  private static void readByteRanges(Backend backend, DeviceBatch batch, int start, int length, long[] byteStart,
      long[] byteEnd, DeviceStream stream) {
    int variable = (int) batch.columns().stream().filter(c -> c.type().isVariableWidth()).count();
    if (variable == 0) return;
    try (HostBlock host = backend.transferMemory().pool().allocate(8L * variable)) {
      int k = 0;
      for (DeviceColumn c : batch.columns()) {
        if (!c.type().isVariableWidth()) continue;
        backend.copyDeviceToHost(c.offsets(), 4L * start, host.address() + 8L * k, 4, stream);
        backend.copyDeviceToHost(c.offsets(), 4L * (start + length), host.address() + 8L * k + 4, 4, stream);
        k++;
      }
      stream.synchronize();
      k = 0;
      for (int i = 0; i < batch.columnCount(); i++) {
        if (!batch.column(i).type().isVariableWidth()) continue;
        byteStart[i] = MemoryUtil.getInt(host.address() + 8L * k);
        byteEnd[i] = MemoryUtil.getInt(host.address() + 8L * k + 4);
        k++;
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
