package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Reference gather of rows by id, value by value: filter compaction and join payloads. A row id of -1 gives a null
 * row. Output bytes match the CUDA gathers exactly (unused bitmap bits zero, null rows' values zero).
 */
final class HostRowGather {
  private HostRowGather() {}

  /** Rows {@code rows} of every column of {@code input}, in that order, as a new batch. */
  static DeviceBatch gather(Backend backend, DeviceBatch input, int[] rows, DeviceStream stream) {
    List<DeviceColumn> columns = new ArrayList<>();
    try {
      for (DeviceColumn c : input.columns()) columns.add(gather(backend, c, rows, stream));
      return new DeviceBatch(columns, rows.length);
    } catch (RuntimeException e) {
      Closeables.closeAll(columns);
      throw e;
    }
  }

  private static DeviceColumn gather(Backend backend, DeviceColumn src, int[] rows, DeviceStream stream) {
    DeviceType type = src.type();
    long bytes = 0;
    if (type.isVariableWidth()) {
      for (int r : rows) bytes += length(src, r);
    }
    DeviceColumn dst = DeviceColumn.allocate(backend, type, rows.length, bytes, stream);
    try {
      backend.fill(dst.validity(), 0, dst.validity().size(), (byte) 0, stream);
      backend.fill(dst.data(), 0, dst.data().size(), (byte) 0, stream);
      long srcData = src.data().address();
      long dstData = dst.data().address();
      long offset = 0;
      for (int i = 0; i < rows.length; i++) {
        int r = rows[i];
        if (type.isVariableWidth()) MemoryUtil.putInt(dst.offsets().address() + 4L * i, (int) offset);
        if (r < 0) continue;
        HostBatchPrimitives.setBit(dst.validity().address(), i, HostBatchPrimitives.getBit(src.validity().address(), r));
        if (type.isVariableWidth()) {
          int n = length(src, r);
          MemoryUtil.copyMemory(srcData + MemoryUtil.getInt(src.offsets().address() + 4L * r), dstData + offset, n);
          offset += n;
        } else if (type.isBitPacked()) {
          HostBatchPrimitives.setBit(dstData, i, HostBatchPrimitives.getBit(srcData, r));
        } else {
          MemoryUtil.copyMemory(srcData + (long) r * type.width(), dstData + (long) i * type.width(), type.width());
        }
      }
      if (type.isVariableWidth()) MemoryUtil.putInt(dst.offsets().address() + 4L * rows.length, (int) offset);
      return dst;
    } catch (RuntimeException e) {
      dst.close();
      throw e;
    }
  }

  private static int length(DeviceColumn c, int row) {
    if (row < 0) return 0;
    long offsets = c.offsets().address();
    return MemoryUtil.getInt(offsets + 4L * row + 4) - MemoryUtil.getInt(offsets + 4L * row);
  }
}
