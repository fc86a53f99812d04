package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.plugin.runtime.TaskGpu;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The way onto the GPU: rows, or the CPU column batches of Spark's vectorized scans, gathered into pinned Arrow
 * vectors up to the target batch size and uploaded as one device batch. Small scan batches (4096 rows by default)
 * are coalesced here, on the host, so the device sees few large batches. Over a GPU shuffle whose output stayed on
 * the device, it reads that output there instead ({@link GpuShuffleExchangeExec#readOnDevice}).
 */
public final class HostToGpuExec extends UnaryExec implements GpuExec {
  private final int targetRows;
  private final long targetBytes;

  public HostToGpuExec(SparkPlan child, int targetRows, long targetBytes) {
    super(child, GpuMetrics.upload(child.sparkContext()));
    this.targetRows = targetRows;
    this.targetBytes = targetBytes;
  }

  @Override
  public RDD<ColumnarBatch> doExecuteColumnar() {
    StructType schema = DataTypeUtils.fromAttributes(child.output());
    String timeZone = conf().sessionLocalTimeZone();
    List<Attribute> output = new ArrayList<>(CollectionConverters.asJava(child.output()));
    int rows = targetRows;
    long bytes = targetBytes;
    Metrics metrics = new Metrics(metric(GpuMetrics.OUTPUT_ROWS), metric(GpuMetrics.OUTPUT_BATCHES),
        metric(GpuMetrics.TRANSFER_BYTES), metric(GpuMetrics.TRANSFER_TIME), metric(GpuMetrics.GATHER_TIME),
        RetryMetrics.of(this));
    Partitions.BatchFunction<ColumnarBatch> uploadColumns = input -> new Uploads(schema, timeZone, output, metrics) {
      @Override
      boolean gather(HostBatchBuilder builder) {
        while (input.hasNext() && builder.rows() < rows && builder.bytes() < bytes) {
          builder.appendColumns(input.next());
        }
        return input.hasNext();
      }
    };
    // a GPU shuffle's output still on the device is read there: only what went through Spark's shuffle is uploaded
    java.util.Optional<RDD<ColumnarBatch>> onDevice = GpuShuffleExchangeExec.readOnDevice(child, uploadColumns);
    if (onDevice.isPresent()) return onDevice.get();
    if (child.supportsColumnar()) return Partitions.map(child.executeColumnar(), uploadColumns);
    return Partitions.map(child.execute(), input -> new Uploads(schema, timeZone, output, metrics) {
      @Override
      boolean gather(HostBatchBuilder builder) {
        builder.appendRows(input, rows, bytes);
        return input.hasNext();
      }
    });
  }

  /** The metrics a partition updates; serialisable with the closure. */
  private record Metrics(SQLMetric rows, SQLMetric batches, SQLMetric bytes, SQLMetric time, SQLMetric gatherTime,
      RetryMetrics retries) implements java.io.Serializable {}

  /** Gathers and uploads one device batch per {@link #next()}. */
  private abstract static class Uploads extends LazyBatchIterator {
    private final StructType schema;
    private final String timeZone;
    private final List<Attribute> output;
    private final Metrics metrics;
    private final DeviceRetry retry;
    private boolean more = true;
    /** The device batches of the host batch gathered last: one, or its pieces when it did not fit. */
    private Iterator<DeviceBatch> uploads = Collections.emptyIterator();

    Uploads(StructType schema, String timeZone, List<Attribute> output, Metrics metrics) {
      this.schema = schema;
      this.timeZone = timeZone;
      this.output = output;
      this.metrics = metrics;
      this.retry = DeviceRetry.of(metrics.retries());
    }

    /** Adds input to {@code builder} up to the target size; returns whether input is left. */
    abstract boolean gather(HostBatchBuilder builder);

    @Override
    protected ColumnarBatch computeNext() {
      while (true) {
        if (uploads.hasNext()) {
          DeviceBatch batch = uploads.next();
          metrics.rows().add(batch.rowCount());
          metrics.batches().add(1);
          return DeviceBatches.wrap(batch, output);
        }
        if (!more) return null;
        uploads = gatherNext();
      }
    }

    /** Gathers the next host batch; its upload, in pieces when the device has no room for it whole. */
    private Iterator<DeviceBatch> gatherNext() {
      TaskGpu gpu = TaskGpu.get();
      VectorSchemaRoot root;
      try (HostBatchBuilder builder = new HostBatchBuilder(schema, timeZone, gpu.hostAllocator())) {
        long gatherStart = System.nanoTime();
        more = gather(builder);
        metrics.gatherTime().add(System.nanoTime() - gatherStart);
        root = builder.take();
      }
      if (root == null) return Collections.emptyIterator();
      gpu.acquireDevice();  // only now: gathering on the host needs no GPU place
      return retry.splitting(root, root.getRowCount(), Uploads::slice, piece -> {
        long start = System.nanoTime();
        DeviceBatch batch = ArrowUpload.upload(gpu.backend(), piece, gpu.stream());
        gpu.stream().synchronize();  // the pinned vectors are freed next
        metrics.time().add(System.nanoTime() - start);
        metrics.bytes().add(piece.getFieldVectors().stream().mapToLong(v -> v.getBufferSize()).sum());
        return batch;
      });
    }

    /** Rows of a host batch, sharing its buffers where Arrow can. */
    private static VectorSchemaRoot slice(VectorSchemaRoot root, int start, int length) {
      VectorSchemaRoot piece = root.slice(start, length);
      piece.setRowCount(length);  // a root without columns keeps its row count only so
      return piece;
    }
  }

  @Override
  public HostToGpuExec withChild(SparkPlan newChild) {
    return new HostToGpuExec(newChild, targetRows, targetBytes);
  }

  @Override
  protected Object[] constructorArgs() {
    return new Object[] {child, targetRows, targetBytes};
  }
}
