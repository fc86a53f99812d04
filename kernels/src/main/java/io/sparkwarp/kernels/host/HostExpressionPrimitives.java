package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.expr.ExprProgram;
import io.sparkwarp.kernels.expr.ExpressionPrimitives;
import io.sparkwarp.kernels.expr.ProgramOutputs;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Reference {@link ExpressionPrimitives}: the program interpreted row by row ({@link ExprInterpreter}), and a filter
 * that gathers the kept rows value by value ({@link HostRowGather}). Output bytes match the CUDA kernels exactly: unused bits of the last
 * bitmap byte are zero, null slots of computed columns hold zero.
 */
final class HostExpressionPrimitives implements ExpressionPrimitives {
  private final Backend backend;

  HostExpressionPrimitives(Backend backend) {
    this.backend = backend;
  }

  @Override
  public List<DeviceColumn> project(ExprProgram program, DeviceBatch input, DeviceStream stream) {
    int rows = input.rowCount();
    List<DeviceColumn> outputs = ProgramOutputs.allocate(backend, program, input, stream);
    if (!program.computesOutputs()) return outputs;
    byte[] bytes = program.bytesLiterals();
    try (DeviceBuffer literals = backend.allocate(bytes.length, stream)) {
      for (int i = 0; i < outputs.size(); i++) {
        if (program.outputs().get(i).passThrough()) continue;
        // the interpreter sets bits one row at a time, so computed columns start cleared
        DeviceColumn column = outputs.get(i);
        backend.fill(column.validity(), 0, column.validity().size(), (byte) 0, stream);
        backend.fill(column.data(), 0, column.data().size(), (byte) 0, stream);
      }
      MemoryUtil.copyToMemory(bytes, 0, literals.address(), bytes.length);
      ExprInterpreter interpreter = new ExprInterpreter(program, literals.address(), input, outputs);
      for (int row = 0; row < rows; row++) interpreter.run(row);
      return outputs;
    } catch (RuntimeException e) {
      Closeables.closeAll(outputs);
      throw e;
    }
  }

  @Override
  public DeviceBatch filter(ExprProgram predicate, DeviceBatch input, int keptColumns, DeviceStream stream) {
    predicate.checkPredicate();
    DeviceBatch view = ExpressionPrimitives.keptColumns(input, keptColumns);
    int[] kept;
    try (DeviceColumn selection = project(predicate, input, stream).get(0)) {
      long validity = selection.validity().address();
      long values = selection.data().address();
      kept = IntStream.range(0, input.rowCount())
          .filter(i -> HostBatchPrimitives.getBit(validity, i) && HostBatchPrimitives.getBit(values, i))
          .toArray();
    }
    return HostRowGather.gather(backend, view, kept, stream);
  }
}
