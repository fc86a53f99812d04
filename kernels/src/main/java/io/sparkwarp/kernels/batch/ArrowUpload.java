package io.sparkwarp.kernels.batch;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Arrow vectors to a device batch, asynchronously on a stream. Each Arrow buffer goes to the device in one copy;
 * from transfer memory ({@code backend.transferMemory()}) that copy runs at the full PCIe rate. The vectors must
 * stay open and unchanged until the stream has been synchronised.
 */
public final class ArrowUpload {
  private ArrowUpload() {}

  /**
   * Uploads equally long vectors as one batch.
   *
   * @throws UnsupportedTypeException for a vector whose type has no device layout (nothing is uploaded)
   */
  public static DeviceBatch upload(Backend backend, List<? extends FieldVector> vectors, DeviceStream stream) {
    return upload(backend, vectors, vectors.isEmpty() ? 0 : vectors.get(0).getValueCount(), stream);
  }

  /** Uploads a root's vectors as one batch of its row count (which a root without columns still has). */
  public static DeviceBatch upload(Backend backend, VectorSchemaRoot root, DeviceStream stream) {
    return upload(backend, root.getFieldVectors(), root.getRowCount(), stream);
  }

  private static DeviceBatch upload(Backend backend, List<? extends FieldVector> vectors, int rows,
      DeviceStream stream) {
    List<DeviceType> types = new ArrayList<>();
    for (FieldVector v : vectors) {
      types.add(DeviceType.fromArrow(v.getField().getType()));
      if (v.getValueCount() != rows) {
        throw new IllegalArgumentException("vectors of " + rows + " and " + v.getValueCount() + " rows in one batch");
      }
    }
    List<DeviceColumn> columns = new ArrayList<>();
    try {
      for (int i = 0; i < vectors.size(); i++) columns.add(upload(backend, vectors.get(i), types.get(i), stream));
      return new DeviceBatch(columns, rows);
    } catch (RuntimeException e) {
      Closeables.closeAll(columns);
      throw e;
    }
  }

  /** Uploads one vector. */
  public static DeviceColumn upload(Backend backend, FieldVector vector, DeviceStream stream) {
    return upload(backend, vector, DeviceType.fromArrow(vector.getField().getType()), stream);
  }

  private static DeviceColumn upload(Backend backend, FieldVector vector, DeviceType type, DeviceStream stream) {
    int rows = vector.getValueCount();
    if (type.isVariableWidth()) return uploadVariableWidth(backend, (BaseVariableWidthVector) vector, type, stream);
    DeviceColumn column = DeviceColumn.allocate(backend, type, rows, 0, stream);
    try {
      uploadValidity(backend, vector, column, stream);
      if (type.kind() == DeviceType.Kind.DECIMAL) {
        // Arrow holds 16 bytes per decimal; narrow them to the device's 8 on the device, not on the CPU
        try (DeviceBuffer wide = backend.allocate(16L * rows, stream)) {
          backend.copyHostToDevice(vector.getDataBufferAddress(), wide, 0, 16L * rows, stream);
          backend.batchPrimitives().decimal128To64(wide, column.data(), rows, stream);
        }
      } else {
        backend.copyHostToDevice(vector.getDataBufferAddress(), column.data(), 0, column.dataBytes(), stream);
      }
      return column;
    } catch (RuntimeException e) {
      column.close();
      throw e;
    }
  }

  private static DeviceColumn uploadVariableWidth(Backend backend, BaseVariableWidthVector vector, DeviceType type,
      DeviceStream stream) {
    int rows = vector.getValueCount();
    // an empty vector may have no offset buffer at all
    long offsetsAddress = rows == 0 ? 0 : vector.getOffsetBufferAddress();
    int first = rows == 0 ? 0 : MemoryUtil.getInt(offsetsAddress);
    int last = rows == 0 ? 0 : MemoryUtil.getInt(offsetsAddress + 4L * rows);
    DeviceColumn column = DeviceColumn.allocate(backend, type, rows, last - first, stream);
    try {
      uploadValidity(backend, vector, column, stream);
      if (rows == 0) {
        backend.fill(column.offsets(), 0, 4, (byte) 0, stream);
      } else if (first == 0) {
        backend.copyHostToDevice(offsetsAddress, column.offsets(), 0, 4L * (rows + 1), stream);
      } else {
        // a sliced Arrow vector: device offsets always start at 0
        try (DeviceBuffer raw = backend.allocate(4L * (rows + 1), stream)) {
          backend.copyHostToDevice(offsetsAddress, raw, 0, 4L * (rows + 1), stream);
          backend.batchPrimitives().rebaseOffsets(raw, 0, rows + 1L, column.offsets(), 0, 0, stream);
        }
      }
      backend.copyHostToDevice(vector.getDataBufferAddress() + first, column.data(), 0, last - first, stream);
      return column;
    } catch (RuntimeException e) {
      column.close();
      throw e;
    }
  }

  private static void uploadValidity(Backend backend, FieldVector vector, DeviceColumn column, DeviceStream stream) {
    long bytes = (column.rowCount() + 7) / 8;
    if (bytes > 0) backend.copyHostToDevice(vector.getValidityBufferAddress(), column.validity(), 0, bytes, stream);
  }
}
