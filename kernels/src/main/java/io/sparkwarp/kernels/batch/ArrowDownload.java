package io.sparkwarp.kernels.batch;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.ipc.message.ArrowFieldNode;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * A device batch into Arrow vectors, asynchronously: {@link #begin} allocates host buffers and queues the copies,
 * {@link #complete} waits for them and builds the vectors. Buffers come from {@code allocator} without being zeroed
 * (Arrow's allocateNew would clear every byte on the CPU first); from transfer memory
 * ({@code backend.transferMemory().arrowAllocator()} or a child) the copies run at the full PCIe rate.
 *
 * <p>The device batch may be closed right after {@link #begin}: its buffers are freed in stream order, after the
 * copies. A download that is never completed is released by {@link #close}.
 */
public final class ArrowDownload implements AutoCloseable {
  private final DeviceStream stream;
  private final BufferAllocator allocator;
  private final List<Field> fields;
  /** Per column, Arrow's buffer order: validity, then offsets (variable width), then values. */
  private final List<List<ArrowBuf>> buffers;
  private final int rows;
  private boolean done;

  private ArrowDownload(DeviceStream stream, BufferAllocator allocator, List<Field> fields,
      List<List<ArrowBuf>> buffers, int rows) {
    this.stream = stream;
    this.allocator = allocator;
    this.fields = fields;
    this.buffers = buffers;
    this.rows = rows;
  }

  /** Starts downloading {@code batch} into vectors named {@code names} (one per column) from {@code allocator}. */
  public static ArrowDownload begin(Backend backend, DeviceBatch batch, List<String> names, BufferAllocator allocator,
      DeviceStream stream) {
    if (names.size() != batch.columnCount()) {
      throw new IllegalArgumentException(names.size() + " names for " + batch.columnCount() + " columns");
    }
    List<Field> fields = new ArrayList<>();
    List<List<ArrowBuf>> buffers = new ArrayList<>();
    try {
      for (int i = 0; i < batch.columnCount(); i++) {
        DeviceColumn column = batch.column(i);
        fields.add(new Field(names.get(i), FieldType.nullable(column.type().toArrow()), null));
        List<ArrowBuf> columnBuffers = new ArrayList<>();
        buffers.add(columnBuffers);
        download(backend, column, allocator, columnBuffers, stream);
      }
      return new ArrowDownload(stream, allocator, fields, buffers, batch.rowCount());
    } catch (RuntimeException e) {
      stream.synchronize();  // no copy may still be writing into the buffers we free
      buffers.forEach(Closeables::closeAll);
      throw e;
    }
  }

  private static void download(Backend backend, DeviceColumn column, BufferAllocator allocator, List<ArrowBuf> out,
      DeviceStream stream) {
    int rows = column.rowCount();
    out.add(copy(backend, column.validity(), (rows + 7) / 8, allocator, stream));
    DeviceType type = column.type();
    if (type.isVariableWidth()) {
      out.add(copy(backend, column.offsets(), 4L * (rows + 1), allocator, stream));
      out.add(copy(backend, column.data(), column.dataBytes(), allocator, stream));
    } else if (type.kind() == DeviceType.Kind.DECIMAL) {
      // widen to Arrow's 16 bytes on the device; the temporary is freed in stream order after the copy
      try (DeviceBuffer wide = backend.allocate(16L * rows, stream)) {
        backend.batchPrimitives().decimal64To128(column.data(), wide, rows, stream);
        out.add(copy(backend, wide, 16L * rows, allocator, stream));
      }
    } else {
      out.add(copy(backend, column.data(), column.dataBytes(), allocator, stream));
    }
  }

  private static ArrowBuf copy(Backend backend, DeviceBuffer src, long bytes, BufferAllocator allocator,
      DeviceStream stream) {
    ArrowBuf buf = allocator.buffer(bytes);
    try {
      backend.copyDeviceToHost(src, 0, buf.memoryAddress(), bytes, stream);
      return buf;
    } catch (RuntimeException e) {
      buf.close();
      throw e;
    }
  }

  /** Waits for the copies and returns the vectors; the caller owns them from here on. */
  public List<FieldVector> complete() {
    if (done) throw new IllegalStateException("download already completed or closed");
    stream.synchronize();
    List<FieldVector> vectors = new ArrayList<>();
    try {
      for (int i = 0; i < fields.size(); i++) {
        FieldVector vector = fields.get(i).createVector(allocator);
        vectors.add(vector);
        // the vector retains the buffers (and recounts nulls from the bitmap when asked)
        vector.loadFieldBuffers(new ArrowFieldNode(rows, 0), buffers.get(i));
      }
      return vectors;
    } catch (RuntimeException e) {
      Closeables.closeAll(vectors);
      throw e;
    } finally {
      done = true;
      buffers.forEach(Closeables::closeAll);
    }
  }

  /** Frees the buffers of a download that was never completed; idempotent. */
  @Override
  public void close() {
    if (!done) {
      done = true;
      stream.synchronize();
      buffers.forEach(Closeables::closeAll);
    }
  }
}
