package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.batch.BatchConcatenator;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.sort.SortKey;
import io.sparkwarp.kernels.sort.TopSelect;
import io.sparkwarp.plugin.runtime.TaskGpu;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Each partition cut to its first {@code limit} rows in a sort order, on the GPU, under Spark's
 * TakeOrderedAndProjectExec: every batch is put with the best rows so far and only the first {@code limit} of them
 * are kept, so N rows per partition leave the device instead of all of them. Spark's operator above takes its own top
 * N of those rows and merges the partitions, as it would have from the full input. Ties at the cut are broken by input
 * order, which Spark leaves unspecified too.
 *
 * <p>Selected before sorted ({@link TopSelect}): where a batch and the kept rows are many more than the limit, a radix
 * select over the first key's 64-bit prefixes (a histogram of one byte per pass, a few passes, each a read of 8 bytes
 * a row) drops the rows that cannot make the cut, and only the candidates, a few times the limit, are gathered and
 * sorted. A sort of every row costs a pass per key byte over all of them, each moving the rows' ids, plus a gather of
 * every column; a top 10 of millions of rows then sorts a few dozen.
 */
public final class GpuTopNExec extends UnaryExec implements GpuExec {
  private final int limit;
  private final Seq<SortOrder> sortOrder;

  public GpuTopNExec(int limit, Seq<SortOrder> sortOrder, SparkPlan child) {
    super(child, GpuMetrics.retrying(child.sparkContext()));
    this.limit = limit;
    this.sortOrder = sortOrder;
  }

  @Override
  public RDD<ColumnarBatch> doExecuteColumnar() {
    List<Attribute> output = new ArrayList<>(CollectionConverters.asJava(child.output()));
    List<SortKey> keys = SortKeys.of(sortOrder, output);
    int n = limit;
    SQLMetric rows = metric(GpuMetrics.OUTPUT_ROWS);
    SQLMetric batches = metric(GpuMetrics.OUTPUT_BATCHES);
    SQLMetric time = metric(GpuMetrics.GPU_TIME);
    RetryMetrics retries = RetryMetrics.of(this);
    return Partitions.map(child.executeColumnar(), input -> new TopN(input, keys, n, output, rows, batches, time,
        DeviceRetry.of(retries)));
  }

  /** One partition's top rows: every batch with the best so far selected and sorted on the device, n kept. */
  private static final class TopN extends LazyBatchIterator {
    private final java.util.Iterator<ColumnarBatch> input;
    private final List<SortKey> keys;
    private final int n;
    private final List<Attribute> output;
    private final SQLMetric rows;
    private final SQLMetric batches;
    private final SQLMetric time;
    /** A step needs the best rows so far whole: when the device has no room it waits for other tasks and reruns. */
    private final DeviceRetry retry;
    private boolean done;

    TopN(java.util.Iterator<ColumnarBatch> input, List<SortKey> keys, int n, List<Attribute> output, SQLMetric rows,
        SQLMetric batches, SQLMetric time, DeviceRetry retry) {
      this.input = input;
      this.keys = keys;
      this.n = n;
      this.output = output;
      this.rows = rows;
      this.batches = batches;
      this.time = time;
      this.retry = retry;
    }

    @Override
    protected ColumnarBatch computeNext() {
      if (done) return null;
      done = true;
      TaskGpu gpu = TaskGpu.get();
      Backend backend = gpu.backend();
      DeviceBatch best = null;
      try {
        while (input.hasNext()) {
          try (DeviceBatch batch = DeviceBatches.unwrap(input.next())) {
            long start = System.nanoTime();
            DeviceBatch candidates = best;
            // the step leaves its inputs as they were when it fails, so that it can run again
            DeviceBatch next = retry.run(() -> {
              if (candidates == null) return TopSelect.top(backend, batch, keys, n, gpu.stream());
              try (DeviceBatch both = BatchConcatenator.concat(backend, List.of(candidates, batch), gpu.stream())) {
                return TopSelect.top(backend, both, keys, n, gpu.stream());
              }
            });
            gpu.stream().synchronize();  // the inputs are freed next
            if (candidates != null) candidates.close();
            best = next;
            time.add(System.nanoTime() - start);
          }
        }
      } catch (RuntimeException e) {
        if (best != null) best.close();
        throw e;
      }
      if (best == null) return null;
      rows.add(best.rowCount());
      batches.add(1);
      return DeviceBatches.wrap(best, output);
    }
  }

  @Override
  public Seq<SortOrder> outputOrdering() {
    return sortOrder;
  }

  @Override
  public UnaryExec withChild(SparkPlan newChild) {
    return new GpuTopNExec(limit, sortOrder, newChild);
  }

  @Override
  protected Object[] constructorArgs() {
    return new Object[] {limit, sortOrder, child};
  }
}
