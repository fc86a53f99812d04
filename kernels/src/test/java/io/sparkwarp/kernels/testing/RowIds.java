package io.sparkwarp.kernels.testing;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;

/** int32 row ids on a backend, and Arrow vectors reordered by them: the expected side of groupings and sorts. */
public final class RowIds {
  private RowIds() {}

  /** {@code values} in a new device buffer (at least 4 bytes), the stream synchronised. */
  public static DeviceBuffer upload(Backend backend, int[] values, DeviceStream stream) {
    DeviceBuffer buffer = backend.allocate(4L * Math.max(1, values.length), stream);
    try (HostBlock staging = backend.transferMemory().pool().allocate(4L * Math.max(1, values.length))) {
      for (int i = 0; i < values.length; i++) MemoryUtil.putInt(staging.address() + 4L * i, values[i]);
      backend.copyHostToDevice(staging.address(), buffer, 0, 4L * values.length, stream);
      stream.synchronize();
    }
    return buffer;
  }

  /** 64-bit {@code values} in a new device buffer (at least 8 bytes), the stream synchronised. */
  public static DeviceBuffer uploadWords(Backend backend, long[] values, DeviceStream stream) {
    DeviceBuffer buffer = backend.allocate(8L * Math.max(1, values.length), stream);
    try (HostBlock staging = backend.transferMemory().pool().allocate(8L * Math.max(1, values.length))) {
      for (int i = 0; i < values.length; i++) MemoryUtil.putLong(staging.address() + 8L * i, values[i]);
      backend.copyHostToDevice(staging.address(), buffer, 0, 8L * values.length, stream);
      stream.synchronize();
    }
    return buffer;
  }

  /** The first {@code count} int32 values of {@code buffer}. */
  public static int[] download(Backend backend, DeviceBuffer buffer, int count, DeviceStream stream) {
    int[] values = new int[count];
    try (HostBlock staging = backend.transferMemory().pool().allocate(4L * Math.max(1, count))) {
      backend.copyDeviceToHost(buffer, 0, staging.address(), 4L * count, stream);
      stream.synchronize();
      for (int i = 0; i < count; i++) values[i] = MemoryUtil.getInt(staging.address() + 4L * i);
    }
    return values;
  }

  /** The first {@code count} 64-bit words of {@code buffer}. */
  public static long[] downloadWords(Backend backend, DeviceBuffer buffer, int count, DeviceStream stream) {
    long[] values = new long[count];
    try (HostBlock staging = backend.transferMemory().pool().allocate(8L * Math.max(1, count))) {
      backend.copyDeviceToHost(buffer, 0, staging.address(), 8L * count, stream);
      stream.synchronize();
      for (int i = 0; i < count; i++) values[i] = MemoryUtil.getLong(staging.address() + 8L * i);
    }
    return values;
  }

  /** A copy of {@code v} whose row j is row order[j] of v. */
  public static FieldVector reorder(FieldVector v, int[] order) {
    FieldVector out = v.getField().createVector(v.getAllocator());
    out.allocateNew();
    for (int j = 0; j < order.length; j++) out.copyFromSafe(order[j], j, v);
    out.setValueCount(order.length);
    return out;
  }
}
