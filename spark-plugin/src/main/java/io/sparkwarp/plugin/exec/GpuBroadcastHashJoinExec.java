package io.sparkwarp.plugin.exec;

import io.sparkwarp.join.JoinType;
import io.sparkwarp.plugin.runtime.TaskGpu;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.joins.HashedRelation;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.Option;
import scala.collection.immutable.Seq;

/**
 * BroadcastHashJoinExec on the GPU: the broadcast side stays Spark's broadcast exchange (a CPU child); each
 * executor puts it on the device once, shared by its tasks ({@link BroadcastBuilds}), and the stream side's
 * batches are joined as they arrive.
 */
public final class GpuBroadcastHashJoinExec extends GpuHashJoinExec {
  public GpuBroadcastHashJoinExec(Seq<Expression> leftKeys, Seq<Expression> rightKeys, JoinSpec spec,
      Option<Expression> condition, SparkPlan left, SparkPlan right, Seq<Attribute> joinOutput,
      Partitioning partitioning, String timeZone, int chunkPairs) {
    super(leftKeys, rightKeys, spec, condition, left, right, joinOutput, partitioning, timeZone, chunkPairs);
  }

  private boolean buildLeft() {
    return spec.buildSide() == JoinType.Side.LEFT;
  }

  @Override
  @SuppressWarnings("unchecked")
  public RDD<ColumnarBatch> doExecuteColumnar() {
    PartitionPlan plan = partitionPlan();
    Broadcast<HashedRelation> broadcast = (Broadcast<HashedRelation>) (Broadcast<?>) (buildLeft() ? left : right)
        .executeBroadcast();
    long id = broadcast.id();
    return Partitions.map((buildLeft() ? right : left).executeColumnar(), stream -> {
      TaskGpu gpu = TaskGpu.get();
      JoinBuildSide build = BroadcastBuilds.acquire(id, broadcast.value(), plan);
      return new HashJoinIterator(gpu, build, () -> BroadcastBuilds.release(id), stream, plan);
    });
  }

  @Override
  protected GpuHashJoinExec withChildren(SparkPlan newLeft, SparkPlan newRight) {
    return new GpuBroadcastHashJoinExec(leftKeys, rightKeys, spec, condition, newLeft, newRight, joinOutput,
        partitioning, timeZone, chunkPairs);
  }

}
