package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.expr.ExprProgram;
import io.sparkwarp.kernels.expr.ExpressionErrorException;
import io.sparkwarp.kernels.expr.ExpressionPrimitives;
import io.sparkwarp.kernels.expr.PassThrough;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import java.util.ArrayList;
import java.util.Arrays;
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
  private final CudaKernel gatherFixed;
  private final CudaKernel gatherBits;
  private final CudaKernel gatherLengths;
  private final CudaKernel gatherBytes;

  CudaExpressionPrimitives(CudaBackend backend, CudaModule module) {
    this.backend = backend;
    this.scan = new CudaScan(backend, module);
    eval = module.kernel("sw_expr_eval");
    selectCounts = module.kernel("sw_select_counts");
    selectRows = module.kernel("sw_select_rows");
    gatherFixed = module.kernel("sw_gather_fixed");
    gatherBits = module.kernel("sw_gather_bits");
    gatherLengths = module.kernel("sw_gather_lengths");
    gatherBytes = module.kernel("sw_gather_bytes");
  }

  @Override
  public List<DeviceColumn> project(ExprProgram program, DeviceBatch input, DeviceStream stream) {
    List<DeviceColumn> outputs = allocateOutputs(program, input, stream);
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
  public DeviceBatch filter(ExprProgram predicate, DeviceBatch input, DeviceStream stream) {
    predicate.checkPredicate();
    long n = input.rowCount();
    long words = (n + 31) / 32;
    List<DeviceColumn> selection = allocateOutputs(predicate, input, stream);
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
        return gather(input, rows, count, launch, stream);
      }
    }
  }

  /** Computed outputs allocated, pass-through outputs copied; nothing is left allocated on failure. */
  private List<DeviceColumn> allocateOutputs(ExprProgram program, DeviceBatch input, DeviceStream stream) {
    program.checkInputs(input);
    List<DeviceColumn> outputs = new ArrayList<>();
    try {
      for (ExprProgram.Output out : program.outputs()) {
        outputs.add(out.passThrough() ? PassThrough.copy(backend, input.column(out.sourceColumn()), stream)
            : DeviceColumn.allocate(backend, out.type(), input.rowCount(), 0, stream));
      }
      return outputs;
    } catch (RuntimeException e) {
      Closeables.closeAll(outputs);
      throw e;
    }
  }

  // ---- Filter gather ----

  /** Rows {@code rows[0, count)} of every column of {@code input} as a new batch. */
  private DeviceBatch gather(DeviceBatch input, DeviceBuffer rows, int count, Launch launch, DeviceStream stream) {
    int columnCount = input.columnCount();
    DeviceBuffer[] offsets = new DeviceBuffer[columnCount];
    List<DeviceColumn> columns = new ArrayList<>();
    try {
      // string columns first: new offsets from gathered lengths, and all byte totals read back at once
      boolean anyBytes = false;
      for (int i = 0; i < columnCount; i++) {
        DeviceColumn c = input.column(i);
        if (!c.type().isVariableWidth()) continue;
        anyBytes = true;
        offsets[i] = backend.allocate(4L * (count + 1), stream);
        if (count > 0) {
          gatherLengths.launchGridStride(count, CudaStream.of(stream), new KernelArgs().pointer(c.offsets())
              .pointer(rows).i64(count).pointer(offsets[i]));
        }
        scan.exclusiveSum(offsets[i], count, stream);
        backend.copyDeviceToHost(offsets[i], 4L * count, launch.byteTotal(i), 4, stream);
      }
      if (anyBytes) stream.synchronize();
      for (int i = 0; i < columnCount; i++) {
        DeviceColumn c = input.column(i);
        if (c.type().isVariableWidth()) {
          columns.add(gatherBytes(c, rows, count, offsets[i], MemoryUtil.getInt(launch.byteTotal(i)), stream));
          offsets[i] = null;  // owned by the column now
        } else {
          columns.add(gatherFixed(c, rows, count, stream));
        }
      }
      return new DeviceBatch(columns, count);
    } catch (RuntimeException e) {
      Closeables.closeAll(columns);
      Closeables.closeAll(Arrays.asList(offsets));
      throw e;
    }
  }

  private DeviceColumn gatherFixed(DeviceColumn src, DeviceBuffer rows, int count, DeviceStream stream) {
    DeviceType type = src.type();
    DeviceColumn dst = DeviceColumn.allocate(backend, type, count, 0, stream);
    try {
      gatherBits(src.validity(), rows, count, dst.validity(), stream);
      if (type.isBitPacked()) {
        gatherBits(src.data(), rows, count, dst.data(), stream);
      } else if (count > 0) {
        gatherFixed.launchGridStride(count, CudaStream.of(stream), new KernelArgs().pointer(src.data())
            .i32(type.width()).pointer(rows).i64(count).pointer(dst.data()));
      }
      return dst;
    } catch (RuntimeException e) {
      dst.close();
      throw e;
    }
  }

  /** A string or binary column from its gathered offsets (which it takes over) and byte total. */
  private DeviceColumn gatherBytes(DeviceColumn src, DeviceBuffer rows, int count, DeviceBuffer offsets, int bytes,
      DeviceStream stream) {
    DeviceBuffer validity = null;
    DeviceBuffer data = null;
    try {
      validity = backend.allocate((count + 7) / 8, stream);
      data = backend.allocate(bytes, stream);
      gatherBits(src.validity(), rows, count, validity, stream);
      if (count > 0) {
        gatherBytes.launchGridStride(32L * count, CudaStream.of(stream), new KernelArgs().pointer(src.data())
            .pointer(src.offsets()).pointer(rows).i64(count).pointer(offsets).pointer(data));
      }
      return new DeviceColumn(src.type(), count, validity, offsets, data, bytes);
    } catch (RuntimeException e) {
      if (validity != null) validity.close();
      if (data != null) data.close();
      throw e;
    }
  }

  private void gatherBits(DeviceBuffer src, DeviceBuffer rows, int count, DeviceBuffer dst, DeviceStream stream) {
    if (count == 0) return;
    dst.checkRange(0, (count + 7) / 8);
    gatherBits.launchGridStride(count, CudaStream.of(stream), new KernelArgs().pointer(src).pointer(rows).i64(count)
        .pointer(dst));
  }

  // ---- Evaluation launch ----

  /**
   * One evaluation of a program: the launch block (instructions, literals, input and output column addresses, error
   * record, byte literals) written to pinned memory, uploaded in one copy, and the kernel launched over all rows.
   * The pinned block also receives what is read back. Closing synchronises the stream before the pinned memory is
   * reused, so a failure between the copies and the next synchronisation cannot corrupt it.
   */
  private final class Launch implements AutoCloseable {
    private static final int ERROR_BYTES = 32;
    /** The block as written, then the read-back area: error record, row count, one byte total per input column. */
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
      host = backend.transferMemory().pool().allocate(readBackAt + ERROR_BYTES + 8 + 8L * input.columnCount());
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

    /** Host address of the read-back int32 holding the byte total of gathered column {@code column}. */
    long byteTotal(int column) {
      return host.address() + readBackAt + ERROR_BYTES + 8 + 8L * column;
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
          MemoryUtil.getLong(r + 16), MemoryUtil.getLong(r + 24));
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
