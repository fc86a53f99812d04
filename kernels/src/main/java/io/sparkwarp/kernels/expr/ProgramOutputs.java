package io.sparkwarp.kernels.expr;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import java.util.ArrayList;
import java.util.List;

/**
 * The output columns of a program run, the same on every backend: pass-through outputs are device-to-device copies
 * of their input columns, computed outputs are allocated for the backend's evaluation to fill.
 */
public final class ProgramOutputs {
  private ProgramOutputs() {}

  /** One column per output of {@code program} over {@code input}; nothing is left allocated on failure. */
  public static List<DeviceColumn> allocate(Backend backend, ExprProgram program, DeviceBatch input,
      DeviceStream stream) {
    program.checkInputs(input);
    List<DeviceColumn> outputs = new ArrayList<>();
    try {
      for (ExprProgram.Output out : program.outputs()) {
        outputs.add(out.passThrough() ? copy(backend, input.column(out.sourceColumn()), stream)
            : DeviceColumn.allocate(backend, out.type(), input.rowCount(), 0, stream));
      }
      return outputs;
    } catch (RuntimeException e) {
      Closeables.closeAll(outputs);
      throw e;
    }
  }

  /** A new column with the same type, rows, validity, offsets and bytes as {@code src}. */
  private static DeviceColumn copy(Backend backend, DeviceColumn src, DeviceStream stream) {
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
