package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.expr.ExpressionErrorException;
import io.sparkwarp.join.DeviceHashJoin;
import io.sparkwarp.join.ProbeMetrics;
import io.sparkwarp.join.StreamedJoin;
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
 * One partition of a GPU hash join: each stream batch is joined as it arrives (closing it), its keys computed first
 * where they are expressions, its output batches queued and handed on one by one; after the last stream batch come
 * the build side's own rows (outer, semi and anti joins building the left side). The residual condition, if any,
 * is part of the device join, which runs on the task's device or spread over the executor's. The build is released
 * when the partition ends or its task does, whichever is first.
 */
final class HashJoinIterator extends LazyBatchIterator {
  private final TaskGpu gpu;
  /** Gives the build back: frees a partition's own, or releases a shared broadcast build. */
  private final Runnable releaseBuild;
  private final Iterator<ColumnarBatch> stream;
  private final KeyProjection streamKeys;
  private final StreamedJoin join;
  private final ResidualCondition residual;
  private final List<Attribute> output;
  private final JoinMetrics metrics;
  private final ArrayDeque<DeviceBatch> ready = new ArrayDeque<>();
  private final DeviceRetry retry;
  private boolean finished;
  private boolean released;

  /** The join on the task's device, over {@code build}'s table. */
  HashJoinIterator(TaskGpu gpu, JoinBuildSide build, Runnable releaseBuild, Iterator<ColumnarBatch> stream,
      GpuHashJoinExec.PartitionPlan plan) {
    this(gpu, new DeviceHashJoin(gpu.backend(), build.batch(), build.keys().keys(), build.table(),
        plan.spec().type(), plan.spec().buildSide(), plan.residual() == null ? null : plan.residual().condition(),
        streamTypes(plan), plan.chunkPairs(), null, gpu.stream()), releaseBuild, stream, plan);
  }

  /** {@code join}, whose build side {@code releaseBuild} gives back once the join is closed. */
  HashJoinIterator(TaskGpu gpu, StreamedJoin join, Runnable releaseBuild, Iterator<ColumnarBatch> stream,
      GpuHashJoinExec.PartitionPlan plan) {
    this.gpu = gpu;
    this.join = join;
    this.releaseBuild = releaseBuild;
    this.stream = stream;
    this.streamKeys = plan.streamKeys();
    this.residual = plan.residual();
    this.output = plan.output();
    this.metrics = plan.metrics();
    this.retry = DeviceRetry.of(plan.retryMetrics());
    TaskContext.get().addTaskCompletionListener((TaskCompletionListener) ctx -> release());
  }

  @Override
  protected ColumnarBatch computeNext() {
    while (true) {
      if (!ready.isEmpty()) {
        DeviceBatch next = ready.poll();
        metrics.rows().add(next.rowCount());
        metrics.batches().add(1);
        return DeviceBatches.wrap(next, output);
      }
      if (stream.hasNext()) {
        joinOne(stream.next());
      } else if (!finished) {
        finished = true;
        long start = System.nanoTime();
        join.finish(ready::add);
        metrics.gpuTime().add(System.nanoTime() - start);
        metrics.finished(join.metrics());
      } else {
        release();
        return null;
      }
    }
  }

  /**
   * Joins one stream batch, or its pieces when it does not fit device memory ({@link DeviceRetry}): a piece's
   * output is handed on only once all of it is made, and the build rows it marks matched are marked again, the same,
   * when it is retried.
   */
  private void joinOne(ColumnarBatch batch) {
    gpu.acquireDevice();
    Iterator<List<DeviceBatch>> pieces = retry.splitting(gpu, DeviceBatches.unwrap(batch), this::joinPiece);
    while (pieces.hasNext()) ready.addAll(pieces.next());
  }

  private List<DeviceBatch> joinPiece(DeviceBatch streamBatch) {
    long start = System.nanoTime();
    ProbeMetrics before = join.metrics();
    List<DeviceBatch> out = new ArrayList<>();
    try (ProjectedKeys keys = streamKeys.of(gpu.backend(), streamBatch, gpu.stream())) {
      join.join(streamBatch, keys.keys(), out::add);
    } catch (ExpressionErrorException e) {
      Closeables.closeAll(out);
      throw residual.toSparkException(e);  // key errors are Spark's already: only the condition raises these here
    } catch (RuntimeException e) {
      Closeables.closeAll(out);
      throw e;
    }
    metrics.probed(before, join.metrics());
    metrics.gpuTime().add(System.nanoTime() - start);
    return out;
  }

  /** The stream side's column types: the nulls of build-side outer rows. */
  static List<DeviceType> streamTypes(GpuHashJoinExec.PartitionPlan plan) {
    return DeviceBatches.types(plan.streamOutput(), plan.timeZone());
  }

  private void release() {
    if (!released) {
      released = true;
      Closeables.closeAll(List.copyOf(ready));
      ready.clear();
      join.close();
      releaseBuild.run();
    }
  }
}
