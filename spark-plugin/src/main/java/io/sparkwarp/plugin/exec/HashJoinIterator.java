package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.expr.ExpressionErrorException;
import io.sparkwarp.join.DeviceHashJoin;
import io.sparkwarp.join.ProbeMetrics;
import io.sparkwarp.plugin.expr.CompiledExpressions;
import io.sparkwarp.plugin.runtime.TaskGpu;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.TaskCompletionListener;

/**
 * One partition of a GPU hash join: each stream batch is joined as it arrives (closing it), its output batches
 * queued and handed on one by one, filtered by the residual condition when there is one; after the last stream
 * batch come the build side's own rows (outer, semi and anti joins building the left side). The build is
 * released when the partition ends or its task does, whichever is first.
 */
final class HashJoinIterator extends LazyBatchIterator {
  private final TaskGpu gpu;
  private final JoinBuildSide build;
  /** Gives the build back: frees a partition's own, or releases a shared broadcast build. */
  private final Runnable releaseBuild;
  private final Iterator<ColumnarBatch> stream;
  private final JoinSpec spec;
  private final DeviceHashJoin join;
  private final CompiledExpressions residual;
  private final List<Attribute> output;
  private final JoinMetrics metrics;
  private final ArrayDeque<DeviceBatch> ready = new ArrayDeque<>();
  private boolean finished;
  private boolean released;

  /** @param residual the compiled residual condition over the output, or null */
  HashJoinIterator(TaskGpu gpu, JoinBuildSide build, Runnable releaseBuild, Iterator<ColumnarBatch> stream,
      JoinSpec spec,
      List<DeviceType> streamTypes, int chunkPairs, CompiledExpressions residual, List<Attribute> output,
      JoinMetrics metrics) {
    this.gpu = gpu;
    this.build = build;
    this.releaseBuild = releaseBuild;
    this.stream = stream;
    this.spec = spec;
    this.residual = residual;
    this.output = output;
    this.metrics = metrics;
    this.join = new DeviceHashJoin(gpu.backend(), build.batch(), build.keys(), build.table(), spec.type(),
        spec.buildSide(), null, streamTypes, chunkPairs, null, gpu.stream());
    TaskContext.get().addTaskCompletionListener((TaskCompletionListener) ctx -> release());
  }

  @Override
  protected ColumnarBatch computeNext() {
    while (true) {
      if (!ready.isEmpty()) {
        DeviceBatch next = filtered(ready.poll());
        if (next.rowCount() == 0) {
          next.close();
          continue;
        }
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

  private void joinOne(ColumnarBatch batch) {
    gpu.acquireDevice();
    long start = System.nanoTime();
    ProbeMetrics before = join.metrics();
    try (DeviceBatch streamBatch = DeviceBatches.unwrap(batch)) {
      join.join(streamBatch, JoinKeyColumns.of(streamBatch, spec.streamKeys(), spec.nullSafe()), ready::add);
    }
    metrics.probed(before, join.metrics());
    metrics.gpuTime().add(System.nanoTime() - start);
  }

  /** {@code batch} less the rows the residual condition rejects (closing {@code batch}). */
  private DeviceBatch filtered(DeviceBatch batch) {
    if (residual == null) return batch;
    try (batch) {
      return gpu.backend().expressions().filter(residual.program(), batch, gpu.stream());
    } catch (ExpressionErrorException e) {
      throw residual.toSparkException(e);
    }
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
