package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.plugin.runtime.TaskGpu;
import io.sparkwarp.plugin.types.SparkTypes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A scan's partition columns: the file's partition values (from its directory names) repeated over every row of a
 * batch, written into pinned Arrow vectors by Spark's own row writer and uploaded as columns appended to the batch.
 */
final class PartitionConstants {
  private PartitionConstants() {}

  /**
   * {@code batch} with one column per field of {@code schema} holding {@code values}; consumes {@code batch} (its
   * columns move to the result, and it is closed if this fails).
   */
  static DeviceBatch append(DeviceBatch batch, InternalRow values, StructType schema, String timeZone, TaskGpu gpu) {
    int rows = batch.rowCount();
    try (HostBatchBuilder builder = new HostBatchBuilder(schema, timeZone, gpu.hostAllocator())) {
      builder.appendRows(Collections.nCopies(rows, values).iterator(), rows, Long.MAX_VALUE);
      DeviceBatch constants;
      try (VectorSchemaRoot root = builder.take()) {
        if (root == null) {  // an empty row group: empty columns
          List<DeviceType> types = Arrays.stream(schema.fields())
              .map(f -> SparkTypes.deviceType(f.dataType(), timeZone).orElseThrow()).toList();
          constants = DeviceBatches.empty(gpu.backend(), types, gpu.stream());
        } else {
          constants = ArrowUpload.upload(gpu.backend(), root, gpu.stream());
          gpu.stream().synchronize();  // the pinned vectors are freed next
        }
      }
      List<DeviceColumn> all = new ArrayList<>(batch.columns());
      all.addAll(constants.columns());
      return new DeviceBatch(all, rows);
    } catch (RuntimeException e) {
      batch.close();
      throw e;
    }
  }

  /** The fields of {@code partitionSchema} named by {@code names}, in that order, and their positions in it. */
  static int[] positions(StructType partitionSchema, List<String> names) {
    return names.stream().mapToInt(partitionSchema::fieldIndex).toArray();
  }

  /** The sub-schema of {@code positions}. */
  static StructType select(StructType partitionSchema, int[] positions) {
    return new StructType(Arrays.stream(positions).mapToObj(i -> partitionSchema.fields()[i])
        .toArray(StructField[]::new));
  }
}
