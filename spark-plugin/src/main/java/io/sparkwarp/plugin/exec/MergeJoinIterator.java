package io.sparkwarp.plugin.exec;

import io.sparkwarp.join.DeviceMergeJoin;
import io.sparkwarp.join.JoinType;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.expr.ExpressionErrorException;
import io.sparkwarp.plugin.runtime.TaskGpu;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.TaskCompletionListener;

/**
 * One partition of a GPU merge join: at the first request both sides are read whole, their keys computed, and the
 * join's output batches queued; they are handed on one by one. Queued batches still held when the task ends are
 * freed. Out of device memory, the keys and the merge wait for other tasks to free some and run again (DeviceRetry).
 */
final class MergeJoinIterator extends LazyBatchIterator {
  private final TaskGpu gpu;
  private final Iterator<ColumnarBatch> left;
  private final Iterator<ColumnarBatch> right;
  private final GpuHashJoinExec.PartitionPlan plan;
  private final ArrayDeque<DeviceBatch> ready = new ArrayDeque<>();
  private final List<Attribute> output;
  private final DeviceRetry retry;
  private boolean joined;

  MergeJoinIterator(TaskGpu gpu, Iterator<ColumnarBatch> left, Iterator<ColumnarBatch> right,
      GpuHashJoinExec.PartitionPlan plan) {
    this.gpu = gpu;
    this.left = left;
    this.right = right;
    this.plan = plan;
    this.output = plan.output();
    this.retry = DeviceRetry.of(plan.retryMetrics());
    TaskContext.get().addTaskCompletionListener((TaskCompletionListener) ctx -> release());
  }

  @Override
  protected ColumnarBatch computeNext() {
    if (!joined) {
      joined = true;
      join();
    }
    DeviceBatch next = ready.poll();
    if (next == null) return null;
    plan.metrics().rows().add(next.rowCount());
    plan.metrics().batches().add(1);
    return DeviceBatches.wrap(next, output);
  }

  private void join() {
    List<AutoCloseable> held = new ArrayList<>();
    try {
      DeviceBatch l = DeviceBatches.whole(gpu, left, plan.leftOutput(), plan.timeZone());
      held.add(l);
      DeviceBatch r = DeviceBatches.whole(gpu, right, plan.rightOutput(), plan.timeZone());
      held.add(r);
      long start = System.nanoTime();
      // the merge needs both sides whole, so out of device memory it waits for other tasks and runs again, unsplit
      ready.addAll(retry.run(() -> merge(l, r)));
      plan.metrics().gpuTime().add(System.nanoTime() - start);
    } finally {
      Closeables.closeAll(held);
    }
  }

  /** The join of the two sides, borrowed: its output batches, or on any failure nothing held. */
  private List<DeviceBatch> merge(DeviceBatch l, DeviceBatch r) {
    ResidualCondition residual = plan.residual();
    List<DeviceBatch> out = new ArrayList<>();
    try (ProjectedKeys lk = plan.keys(JoinType.Side.LEFT).of(gpu.backend(), l, gpu.stream());
        ProjectedKeys rk = plan.keys(JoinType.Side.RIGHT).of(gpu.backend(), r, gpu.stream())) {
      long pairs = DeviceMergeJoin.join(gpu.backend(), l, lk.keys(), r, rk.keys(), plan.spec().type(),
          residual == null ? null : residual.condition(), plan.chunkPairs(), gpu.stream(), out::add);
      plan.metrics().matches().add(pairs);
      return out;
    } catch (ExpressionErrorException e) {
      Closeables.closeAll(out);
      throw residual.toSparkException(e);  // key errors are Spark's already: only the condition raises these here
    } catch (RuntimeException | Error e) {
      Closeables.closeAll(out);
      throw e;
    }
  }

  private void release() {
    Closeables.closeAll(List.copyOf(ready));
    ready.clear();
  }
}
