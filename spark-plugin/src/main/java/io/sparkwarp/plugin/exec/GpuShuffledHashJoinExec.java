package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.join.JoinType;
import io.sparkwarp.join.SpreadHashJoin;
import io.sparkwarp.kernels.Backend;
import io.sparkwarp.plugin.runtime.GpuDevice;
import io.sparkwarp.plugin.runtime.GpuRuntime;
import io.sparkwarp.plugin.runtime.TaskGpu;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.Option;
import scala.collection.immutable.Seq;

/**
 * ShuffledHashJoinExec, and SortMergeJoinExec, on the GPU: per partition, the build side's batches are gathered
 * into one device batch with its hash table, then the stream side's batches are joined as they arrive. Under {@code
 * spark.warp.join.algorithm=auto} ({@code adaptive} not null, fixed-width keys) a partition whose stream side turns
 * out to fit device memory and not to dwarf the build side is merged instead, unless its build keys are unique
 * ({@link AdaptiveMerge}; the unique-key table this finds out with is the hash join's). With several
 * devices in the executor, a partition whose build side holds at least {@code spreadBytes} of device memory is
 * joined over all of them ({@link SpreadHashJoin}).
 */
public final class GpuShuffledHashJoinExec extends GpuHashJoinExec {
  private final AdaptiveMerge adaptive;
  /** spark.warp.join.spreadBytes when the plan was made. */
  private final long spreadBytes;

  public GpuShuffledHashJoinExec(Seq<Expression> leftKeys, Seq<Expression> rightKeys, JoinSpec spec,
      Option<Expression> condition, SparkPlan left, SparkPlan right, Seq<Attribute> joinOutput,
      Partitioning partitioning, String timeZone, int chunkPairs, AdaptiveMerge adaptive, long spreadBytes) {
    super(leftKeys, rightKeys, spec, condition, left, right, joinOutput, partitioning, timeZone, chunkPairs,
        true);
    this.adaptive = adaptive;
    this.spreadBytes = spreadBytes;
  }

  @Override
  public RDD<ColumnarBatch> doExecuteColumnar() {
    PartitionPlan plan = partitionPlan();
    AdaptiveMerge adaptive = this.adaptive;
    long spreadBytes = this.spreadBytes;
    return Partitions.zip(left.executeColumnar(), right.executeColumnar(), (l, r) -> {
      boolean buildLeft = plan.spec().buildSide() == JoinType.Side.LEFT;
      TaskGpu gpu = TaskGpu.get();
      DeviceBatch build = DeviceBatches.whole(gpu, buildLeft ? l : r, plan.buildOutput(), plan.timeZone());
      Iterator<ColumnarBatch> stream = buildLeft ? r : l;
      JoinBuildSide table = null;
      if (adaptive != null && build.rowCount() > 0) {  // an empty build is never merged: stream at once
        List<ColumnarBatch> head = readUpTo(stream, adaptive.maxStreamBytes(), build);
        if (!stream.hasNext() && adaptive.prefersMerge(build.rowCount(), rows(head))) {
          // unique build keys: the hash join wins (AdaptiveMerge), over the table this built
          table = uniqueBuild(gpu, build, plan, head);
          if (table == null) {
            plan.metrics().mergePartitions().add(1);
            Iterator<ColumnarBatch> built = List.of(DeviceBatches.wrap(build, plan.buildOutput())).iterator();
            return new MergeJoinIterator(gpu, buildLeft ? built : head.iterator(),
                buildLeft ? head.iterator() : built, plan);
          }
        }
        stream = Iterators.concat(head.iterator(), stream);
      }
      GpuRuntime runtime = GpuRuntime.get();
      if (table == null && runtime.devices().size() > 1 && build.deviceBytes() >= spreadBytes
          && runtime.devicesReadEachOther()) {
        plan.metrics().spreadPartitions().add(1);
        return spread(gpu, build, stream, plan);
      }
      if (table == null) table = JoinBuildSide.of(gpu.backend(), build, plan.buildKeys(), gpu.stream());
      JoinBuildSide built = table;
      return new HashJoinIterator(gpu, built, built::free, stream, plan);
    });
  }

  /**
   * The build side with its unique-key table, or null where its keys repeat (the batch then stays the caller's);
   * frees the stream's first batches and the build side if building fails.
   */
  private static JoinBuildSide uniqueBuild(TaskGpu gpu, DeviceBatch build, PartitionPlan plan,
      List<ColumnarBatch> head) {
    try {
      return JoinBuildSide.ifUnique(gpu.backend(), build, plan.buildKeys(), gpu.stream());
    } catch (RuntimeException e) {
      head.forEach(ColumnarBatch::close);
      throw e;
    }
  }

  /** The partition's join over all of the executor's devices; takes the build batch (freed if this fails). */
  private static HashJoinIterator spread(TaskGpu gpu, DeviceBatch build, Iterator<ColumnarBatch> stream,
      PartitionPlan plan) {
    ProjectedKeys keys = null;
    try {
      List<Backend> devices = gpu.acquireAllDevices().stream().map(GpuDevice::backend).toList();
      keys = plan.buildKeys().of(gpu.backend(), build, gpu.stream());
      SpreadHashJoin join = new SpreadHashJoin(devices, gpu.device().index(), build, keys.keys(), plan.spec().type(),
          plan.spec().buildSide(), plan.residual() == null ? null : plan.residual().condition(),
          HashJoinIterator.streamTypes(plan), plan.chunkPairs(), Long.MAX_VALUE, gpu.stream());
      ProjectedKeys buildKeys = keys;
      return new HashJoinIterator(gpu, join, () -> Closeables.closeAll(List.of(buildKeys, build)), stream, plan);
    } catch (RuntimeException e) {
      Closeables.closeAll(keys == null ? List.of(build) : List.of(keys, build));
      throw e;
    }
  }

  /**
   * The stream's first batches, read until the stream ends or they hold more than {@code maxBytes} of device memory
   * (then the hash join goes on: the merge join would hold the whole side). Frees them and the build side if reading
   * fails.
   */
  private static List<ColumnarBatch> readUpTo(Iterator<ColumnarBatch> stream, long maxBytes, DeviceBatch build) {
    List<ColumnarBatch> head = new ArrayList<>();
    try {
      long bytes = 0;
      while (bytes <= maxBytes && stream.hasNext()) {
        ColumnarBatch next = stream.next();
        head.add(next);
        bytes += DeviceBatches.unwrap(next).deviceBytes();
      }
      return head;
    } catch (RuntimeException e) {
      head.forEach(ColumnarBatch::close);
      build.close();
      throw e;
    }
  }

  private static long rows(List<ColumnarBatch> batches) {
    return batches.stream().mapToLong(ColumnarBatch::numRows).sum();
  }

  @Override
  protected Object[] constructorArgs() {
    return new Object[] {leftKeys, rightKeys, spec, condition, left, right, joinOutput, partitioning, timeZone,
        chunkPairs, adaptive, spreadBytes};
  }

  @Override
  protected GpuHashJoinExec withChildren(SparkPlan newLeft, SparkPlan newRight) {
    return new GpuShuffledHashJoinExec(leftKeys, rightKeys, spec, condition, newLeft, newRight, joinOutput,
        partitioning, timeZone, chunkPairs, adaptive, spreadBytes);
  }
}
