package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.join.JoinType;
import io.sparkwarp.plugin.runtime.TaskGpu;
import java.util.Iterator;
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
 * into one device batch with its hash table, then the stream side's batches are joined as they arrive.
 */
public final class GpuShuffledHashJoinExec extends GpuHashJoinExec {
  public GpuShuffledHashJoinExec(Seq<Expression> leftKeys, Seq<Expression> rightKeys, JoinSpec spec,
      Option<Expression> condition, SparkPlan left, SparkPlan right, Seq<Attribute> joinOutput,
      Partitioning partitioning, String timeZone, int chunkPairs) {
    super(leftKeys, rightKeys, spec, condition, left, right, joinOutput, partitioning, timeZone, chunkPairs);
  }

  @Override
  public RDD<ColumnarBatch> doExecuteColumnar() {
    PartitionPlan plan = partitionPlan();
    return Partitions.zip(left.executeColumnar(), right.executeColumnar(), (l, r) -> {
      boolean buildLeft = plan.spec().buildSide() == JoinType.Side.LEFT;
      TaskGpu gpu = TaskGpu.get();
      JoinBuildSide build = buildPartition(gpu, buildLeft ? l : r, plan);
      return new HashJoinIterator(gpu, build, build::free, buildLeft ? r : l, plan);
    });
  }

  /** The partition's build side as one batch (its batches concatenated) with its own table. */
  private static JoinBuildSide buildPartition(TaskGpu gpu, Iterator<ColumnarBatch> input, PartitionPlan plan) {
    DeviceBatch batch = DeviceBatches.whole(gpu, input, plan.buildOutput(), plan.timeZone());
    return JoinBuildSide.of(gpu.backend(), batch, plan.buildKeys(), gpu.stream());
  }



  @Override
  protected GpuHashJoinExec withChildren(SparkPlan newLeft, SparkPlan newRight) {
    return new GpuShuffledHashJoinExec(leftKeys, rightKeys, spec, condition, newLeft, newRight, joinOutput,
        partitioning, timeZone, chunkPairs);
  }

}
