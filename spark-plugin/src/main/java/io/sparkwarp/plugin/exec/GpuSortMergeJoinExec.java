package io.sparkwarp.plugin.exec;

import io.sparkwarp.plugin.runtime.TaskGpu;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.Option;
import scala.collection.immutable.Seq;

/**
 * SortMergeJoinExec and ShuffledHashJoinExec as a merge-path sort-merge join on the GPU
 * ({@code spark.warp.join.algorithm=mergePath}): per partition, both sides are gathered into one device batch each
 * and joined by {@link io.sparkwarp.join.DeviceMergeJoin}, which sorts them itself (Spark's sorts under a sort-merge
 * join go, as for the hash join).
 */
public final class GpuSortMergeJoinExec extends GpuHashJoinExec {
  public GpuSortMergeJoinExec(Seq<Expression> leftKeys, Seq<Expression> rightKeys, JoinSpec spec,
      Option<Expression> condition, SparkPlan left, SparkPlan right, Seq<Attribute> joinOutput,
      Partitioning partitioning, String timeZone, int chunkPairs) {
    super(leftKeys, rightKeys, spec, condition, left, right, joinOutput, partitioning, timeZone, chunkPairs,
        true);
  }

  @Override
  public RDD<ColumnarBatch> doExecuteColumnar() {
    PartitionPlan plan = partitionPlan();
    return Partitions.zip(left.executeColumnar(), right.executeColumnar(),
        (l, r) -> {
          plan.metrics().mergePartitions().add(1);
          return new MergeJoinIterator(TaskGpu.get(), l, r, plan);
        });
  }

  @Override
  protected GpuHashJoinExec withChildren(SparkPlan newLeft, SparkPlan newRight) {
    return new GpuSortMergeJoinExec(leftKeys, rightKeys, spec, condition, newLeft, newRight, joinOutput,
        partitioning, timeZone, chunkPairs);
  }
}
