package io.sparkwarp.kernels.expr;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;

/** The pass-through outputs of a projection: device-to-device copies of input columns, the same on every backend. */
public final class PassThrough {
  private PassThrough() {}

  /** A new column with the same type, rows, validity, offsets and bytes as {@code src}. */
  public static DeviceColumn copy(Backend backend, DeviceColumn src, DeviceStream stream) {
    int rows = src.rowCount();
    DeviceColumn dst = DeviceColumn.allocate(backend, src.type(), rows, src.dataBytes(), stream);
    try {
      backend.copyDeviceToDevice(src.validity(), 0, dst.validity(), 0, (rows + 7) / 8, stream);
      if (src.type().isVariableWidth()) {
        backend.copyDeviceToDevice(src.offsets(), 0, dst.offsets(), 0, 4L * (rows + 1), stream);
      }
      backend.copyDeviceToDevice(src.data(), 0, dst.data(), 0, src.dataBytes(), stream);
      return dst;
    } catch (RuntimeException e) {
      dst.close();
      throw e;
    }
  }
}
