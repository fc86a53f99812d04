package io.sparkwarp.plugin.exec;

import io.sparkwarp.plugin.runtime.TaskGpu;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.TaskContext;
import org.apache.spark.util.TaskCompletionListener;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The way off the GPU: each device batch is downloaded into Arrow vectors in pinned memory and handed on as a
 * batch of ArrowColumnVectors, which Spark's own ColumnarToRowExec (inserted above by Spark) reads. A batch stays
 * valid until the next one is asked for, as with Spark's own columnar readers; the last is freed when the task ends.
 */
public final class GpuToHostExec extends UnaryExec {
  public GpuToHostExec(SparkPlan child) {
    super(child, GpuMetrics.transfer(child.sparkContext()));
  }

  @Override
  public RDD<ColumnarBatch> doExecuteColumnar() {
    List<String> names = CollectionConverters.asJava(child.output()).stream().map(Attribute::name).toList();
    List<String> columnNames = new ArrayList<>(names);
    Metrics metrics = new Metrics(metric(GpuMetrics.OUTPUT_ROWS), metric(GpuMetrics.OUTPUT_BATCHES),
        metric(GpuMetrics.TRANSFER_BYTES), metric(GpuMetrics.TRANSFER_TIME));
    return Partitions.map(child.executeColumnar(), input -> new Downloads(input, columnNames, metrics));
  }

  /** What a download counts: a batch of {@code rows} rows and {@code bytes} bytes in {@code nanos}. */
  interface DownloadMetrics {
    void add(int rows, long bytes, long nanos);
  }

  /** The metrics a partition updates; serialisable with the closure. */
  private record Metrics(SQLMetric rows, SQLMetric batches, SQLMetric bytes, SQLMetric time)
      implements java.io.Serializable, DownloadMetrics {
    @Override
    public void add(int n, long transferred, long nanos) {
      time.add(nanos);
      bytes.add(transferred);
      rows.add(n);
      batches.add(1);
    }
  }

  /** Downloads one device batch per {@link #next()}, freeing the previous host batch first. */
  static final class Downloads implements Iterator<ColumnarBatch> {
    private final Iterator<ColumnarBatch> input;
    private final List<String> names;
    private final DownloadMetrics metrics;
    private final TaskGpu gpu;
    private ColumnarBatch current;

    Downloads(Iterator<ColumnarBatch> input, List<String> names, DownloadMetrics metrics) {
      this.input = input;
      this.names = names;
      this.metrics = metrics;
      this.gpu = TaskGpu.get();  // taken before the listener below, so it is released after it
      TaskContext.get().addTaskCompletionListener((TaskCompletionListener) ctx -> closeCurrent());
    }

    @Override
    public boolean hasNext() {
      return input.hasNext();
    }

    @Override
    public ColumnarBatch next() {
      closeCurrent();
      ColumnarBatch next = input.next();  // the input's own work is not this download's time
      long start = System.nanoTime();
      DeviceBatches.Downloaded downloaded = DeviceBatches.download(next, names, gpu);
      List<FieldVector> vectors = downloaded.vectors();
      int n = downloaded.rows();
      long nanos = System.nanoTime() - start;
      ColumnVector[] columns = new ColumnVector[vectors.size()];
      long transferred = 0;
      for (int i = 0; i < columns.length; i++) {
        columns[i] = new ArrowColumnVector(vectors.get(i));
        transferred += vectors.get(i).getBufferSize();
      }
      metrics.add(n, transferred, nanos);
      current = new ColumnarBatch(columns, n);
      return current;
    }

    private void closeCurrent() {
      if (current != null) {
        current.close();
        current = null;
      }
    }
  }

  @Override
  public GpuToHostExec withChild(SparkPlan newChild) {
    return new GpuToHostExec(newChild);
  }

  @Override
  protected Object[] constructorArgs() {
    return new Object[] {child};
  }
}
