package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.BatchConcatenator;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.plugin.runtime.TaskGpu;
import io.sparkwarp.plugin.shuffle.SliceAppender;
import io.sparkwarp.plugin.types.SparkTypes;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Device batches travel between GPU operators inside Spark's ColumnarBatch, one {@link DeviceColumnVector} per
 * column. Ownership moves with the batch: the operator that consumes a batch closes it.
 */
public final class DeviceBatches {
  private DeviceBatches() {}

  /** Wraps {@code batch} for Spark; the ColumnarBatch now owns its columns. */
  public static ColumnarBatch wrap(DeviceBatch batch, List<Attribute> output) {
    ColumnVector[] vectors = new ColumnVector[batch.columnCount()];
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = new DeviceColumnVector(output.get(i).dataType(), batch.column(i));
    }
    return new ColumnarBatch(vectors, batch.rowCount());
  }

  /** A batch of no rows with columns of {@code types}: the build side of a join whose partition is empty. */
  public static DeviceBatch empty(Backend backend, List<DeviceType> types, DeviceStream stream) {
    List<DeviceColumn> columns = new ArrayList<>();
    try {
      for (DeviceType type : types) {
        DeviceColumn c = DeviceColumn.allocate(backend, type, 0, 0, stream);
        columns.add(c);
        if (type.isVariableWidth()) backend.fill(c.offsets(), 0, 4, (byte) 0, stream);
      }
      return new DeviceBatch(columns, 0);
    } catch (RuntimeException e) {
      Closeables.closeAll(columns);
      throw e;
    }
  }

  /** The device type of each attribute (each was checked when the plan was tagged). */
  public static List<DeviceType> types(List<Attribute> attributes, String timeZone) {
    return attributes.stream().map(a -> SparkTypes.deviceType(a.dataType(), timeZone).orElseThrow()).toList();
  }

  /** A device batch's columns on the host, in Arrow vectors the caller owns, and its row count. */
  record Downloaded(List<FieldVector> vectors, int rows) {}

  /**
   * Downloads {@code batch} into the task's pinned Arrow memory and frees it on the device; the task leaves the
   * device if that was the last device memory it held.
   */
  static Downloaded download(ColumnarBatch batch, List<String> names, TaskGpu gpu) {
    try (DeviceBatch onDevice = unwrap(batch)) {
      return download(onDevice, names, gpu);
    }
  }

  /** {@code onDevice}'s columns in host Arrow vectors (left open), the device given back if the task is idle. */
  static Downloaded download(DeviceBatch onDevice, List<String> names, TaskGpu gpu) {
    Downloaded result;
    try (ArrowDownload download = ArrowDownload.begin(gpu.backend(), onDevice, names, gpu.hostAllocator(),
        gpu.stream())) {
      // the row count is the batch's, not the vectors': a batch may have rows and no columns
      result = new Downloaded(download.complete(), onDevice.rowCount());
    }
    gpu.releaseDeviceIfIdle();
    return result;
  }

  /** Serialized slices of rows ({@link SliceAppender}'s format, all of {@code schema}) as one device batch. */
  static DeviceBatch upload(Schema schema, List<byte[]> slices, TaskGpu gpu) {
    try (SliceAppender appender = new SliceAppender(schema, gpu.hostAllocator())) {
      for (byte[] slice : slices) appender.append(slice);
      try (VectorSchemaRoot root = appender.take()) {
        return ArrowUpload.upload(gpu.backend(), root, gpu.stream());
      }
    }
  }

  /**
   * A partition's batches as one device batch (concatenated; empty where there are none), which the caller owns: the
   * whole side of a shuffled join, the input of a sort.
   */
  static DeviceBatch whole(TaskGpu gpu, Iterator<ColumnarBatch> input, List<Attribute> output, String timeZone) {
    List<DeviceBatch> parts = new ArrayList<>();
    try {
      while (input.hasNext()) parts.add(unwrap(input.next()));
      gpu.acquireDevice();
      return parts.isEmpty() ? empty(gpu.backend(), types(output, timeZone), gpu.stream())
          : parts.size() == 1 ? parts.remove(0) : BatchConcatenator.concat(gpu.backend(), parts, gpu.stream());
    } finally {
      Closeables.closeAll(parts);
    }
  }
  /** The device batch inside {@code batch}; closing either closes the columns (closing is idempotent). */
  public static DeviceBatch unwrap(ColumnarBatch batch) {
    List<DeviceColumn> columns = new ArrayList<>(batch.numCols());
    for (int i = 0; i < batch.numCols(); i++) {
      if (!(batch.column(i) instanceof DeviceColumnVector d)) {
        throw new IllegalStateException("a GPU operator received a host column (" + batch.column(i).getClass()
            .getSimpleName() + "): a missing HostToGpuExec is a sparkwarp bug");
      }
      columns.add(d.column());
    }
    return new DeviceBatch(columns, batch.numRows());
  }
}
