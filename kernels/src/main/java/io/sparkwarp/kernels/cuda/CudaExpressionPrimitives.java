package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.expr.ExprProgram;
import io.sparkwarp.kernels.expr.ExpressionErrorException;
import io.sparkwarp.kernels.expr.ExpressionPrimitives;
import io.sparkwarp.kernels.expr.ProgramOutputs;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import java.util.List;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * {@link ExpressionPrimitives} as launches of {@code expr.cu} (evaluation), {@code scan.cu} and {@code select.cu}
 * (filter compaction). A projection is one upload of the program (code, literals, column addresses and the error
 * record in one block), one launch, and one read-back of the error record; a filter adds the selection count and
 * scan, one read-back of the number of rows kept, and a gather per column (string columns one more read-back for
 * their byte totals).
 */
final class CudaExpressionPrimitives implements ExpressionPrimitives {
  private final CudaBackend backend;
  private final CudaScan scan;
  private final CudaKernel eval;
  private final CudaKernel selectCounts;
  private final CudaKernel selectRows;
  private final CudaRowGather gather;

  CudaExpressionPrimitives(CudaBackend backend, CudaModule module) {
    this.backend = backend;
    this.scan = new CudaScan(backend, module);
    eval = module.kernel("sw_expr_eval");
    selectCounts = module.kernel("sw_select_counts");
    selectRows = module.kernel("sw_select_rows");
    gather = new CudaRowGather(backend, module, scan);
  }

  @Override
  public List<DeviceColumn> project(ExprProgram program, DeviceBatch input, DeviceStream stream) {
    List<DeviceColumn> outputs = ProgramOutputs.allocate(backend, program, input, stream);
    if (!program.computesOutputs()) return outputs;  // copies only: no launch, no error to read back
    try (Launch launch = new Launch(program, input, outputs, stream)) {
      launch.readBack(stream);
      stream.synchronize();
      launch.throwIfFailed(stream);
      return outputs;
    } catch (RuntimeException e) {
      Closeables.closeAll(outputs);
      throw e;
    }
  }

  @Override
  public DeviceBatch filter(ExprProgram predicate, DeviceBatch input, int keptColumns, DeviceStream stream) {
    predicate.checkPredicate();
    DeviceBatch kept = ExpressionPrimitives.keptColumns(input, keptColumns);
    long n = input.rowCount();
    long words = (n + 31) / 32;
    List<DeviceColumn> selection = ProgramOutputs.allocate(backend, predicate, input, stream);
    try (DeviceColumn selected = selection.get(0);
        Launch launch = new Launch(predicate, input, selection, stream);
        DeviceBuffer wordOffsets = backend.allocate(4 * (words + 1), stream)) {
      if (words > 0) {
        selectCounts.launchGridStride(words, CudaStream.of(stream), new KernelArgs().pointer(selected.validity())
            .pointer(selected.data()).i64(words).pointer(wordOffsets));
      }
      scan.exclusiveSum(wordOffsets, words, stream);
      backend.copyDeviceToHost(wordOffsets, 4 * words, launch.count(), 4, stream);
      launch.readBack(stream);
      stream.synchronize();
      launch.throwIfFailed(stream);
      int count = MemoryUtil.getInt(launch.count());
      try (DeviceBuffer rows = backend.allocate(4L * count, stream)) {
        if (count > 0) {
          selectRows.launchGridStride(n, CudaStream.of(stream), new KernelArgs().pointer(selected.validity())
              .pointer(selected.data()).i64(n).pointer(wordOffsets).pointer(rows));
        }
        return gather.gather(kept, rows, count, stream);
      }
    }
  }

  // ---- Evaluation launch ----

  /**
   * One evaluation of a program: the launch block (instructions, literals, input and output column addresses, error
   * record, byte literals) written to pinned memory, uploaded in one copy, and the kernel launched over all rows.
   * The pinned block also receives what is read back. Closing synchronises the stream before the pinned memory is
   * reused, so a failure between the copies and the next synchronisation cannot corrupt it.
   */
  private final class Launch implements AutoCloseable {
    private static final int ERROR_BYTES = 48;
    /** The block as written, then the read-back area: error record and row count. */
    private final HostBlock host;
    private final DeviceBuffer block;
    private final ExprProgram program;
    private final DeviceStream stream;
    private final int rows;
    private final long literalsAt;
    private final long inputsAt;
    private final long outputsAt;
    private final long errorAt;
    private final long bytesAt;
    private final long readBackAt;

    Launch(ExprProgram program, DeviceBatch input, List<DeviceColumn> outputs, DeviceStream stream) {
      this.program = program;
      this.stream = stream;
      this.rows = input.rowCount();
      int[] code = program.code();
      long[] literals = program.literals();
      byte[] bytes = program.bytesLiterals();
      literalsAt = 4L * code.length;
      inputsAt = literalsAt + 8L * literals.length;
      outputsAt = inputsAt + 24L * input.columnCount();
      errorAt = outputsAt + 16L * outputs.size();
      bytesAt = errorAt + ERROR_BYTES;
      long size = bytesAt + bytes.length;
      readBackAt = (size + 7) & ~7L;
      host = backend.transferMemory().pool().allocate(readBackAt + ERROR_BYTES + 8);
      try {
        block = backend.allocate(size, stream);
      } catch (RuntimeException e) {
        host.close();
        throw e;
      }
      try {
        write(code, literals, bytes, input, outputs);
        backend.copyHostToDevice(host.address(), block, 0, size, stream);
        if (rows > 0) launch(0, rows, false, stream);
      } catch (RuntimeException e) {
        close();
        throw e;
      }
    }

    private void write(int[] code, long[] literals, byte[] bytes, DeviceBatch input, List<DeviceColumn> outputs) {
      long a = host.address();
      for (int i = 0; i < code.length; i++) MemoryUtil.putInt(a + 4L * i, code[i]);
      for (int i = 0; i < literals.length; i++) MemoryUtil.putLong(a + literalsAt + 8L * i, literals[i]);
      for (int i = 0; i < input.columnCount(); i++) {
        DeviceColumn c = input.column(i);
        long at = a + inputsAt + 24L * i;
        MemoryUtil.putLong(at, c.validity().address());
        MemoryUtil.putLong(at + 8, c.type().isVariableWidth() ? c.offsets().address() : 0);
        MemoryUtil.putLong(at + 16, c.data().address());
      }
      for (int i = 0; i < outputs.size(); i++) {
        boolean computed = !program.outputs().get(i).passThrough();
        MemoryUtil.putLong(a + outputsAt + 16L * i, computed ? outputs.get(i).validity().address() : 0);
        MemoryUtil.putLong(a + outputsAt + 16L * i + 8, computed ? outputs.get(i).data().address() : 0);
      }
      MemoryUtil.putLong(a + errorAt, Long.MAX_VALUE);
      MemoryUtil.setMemory(a + errorAt + 8, ERROR_BYTES - 8, (byte) 0);
      MemoryUtil.copyToMemory(bytes, 0, a + bytesAt, bytes.length);
    }

    private void launch(long rowBegin, long rowEnd, boolean detail, DeviceStream stream) {
      long base = block.address();
      KernelArgs args = new KernelArgs().address(base).i32(program.instructions().size()).address(base + literalsAt)
          .address(base + bytesAt).address(base + inputsAt).address(base + outputsAt).i64(rowBegin).i64(rowEnd)
          .address(base + errorAt).i32(detail ? 1 : 0);
      eval.launchGridStride(rowEnd - rowBegin, CudaStream.of(stream), args);
    }

    /** Queues the copy of the error record into the read-back area. */
    void readBack(DeviceStream stream) {
      backend.copyDeviceToHost(block, errorAt, host.address() + readBackAt, ERROR_BYTES, stream);
    }

    /** Host address of the read-back int32 holding the number of rows a filter keeps. */
    long count() {
      return host.address() + readBackAt + ERROR_BYTES;
    }

    /**
     * After a synchronised {@link #readBack}: when a row failed, runs the program again over that row alone to
     * learn what failed, and throws it.
     */
    void throwIfFailed(DeviceStream stream) {
      long row = MemoryUtil.getLong(host.address() + readBackAt);
      if (row == Long.MAX_VALUE) return;
      launch(row, row + 1, true, stream);
      readBack(stream);
      stream.synchronize();
      long r = host.address() + readBackAt;
      int kind = MemoryUtil.getInt(r + 8);
      int site = MemoryUtil.getInt(r + 12);
      throw new ExpressionErrorException(ExpressionErrorException.Kind.values()[kind - 1], (int) row, program, site,
          MemoryUtil.getLong(r + 16), MemoryUtil.getLong(r + 24), MemoryUtil.getLong(r + 32),
          MemoryUtil.getLong(r + 40));
    }

    @Override
    public void close() {
      try {
        stream.synchronize();  // no copy may still read or fill the pinned block
      } finally {
        block.close();
        host.close();
      }
    }
  }
}
