package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import java.util.ArrayList;
import java.util.List;
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
