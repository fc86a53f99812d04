package io.sparkwarp.plugin.exec;

import io.sparkwarp.join.JoinType;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.plugin.expr.ExpressionCompiler;
import io.sparkwarp.plugin.expr.ExpressionSettings;
import io.sparkwarp.plugin.runtime.TaskGpu;
import io.sparkwarp.strings.MatchingProgram;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.joins.EmptyHashedRelation$;
import org.apache.spark.sql.execution.joins.HashedRelationWithAllNullKeys$;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * BroadcastHashJoinExec on the GPU: the broadcast side is a {@link GpuBroadcastExchangeExec} (columnar slices) or,
 * where the plan keeps Spark's exchange, Spark's HashedRelation; each executor puts it on the device once, shared by
 * its tasks ({@link BroadcastBuilds}), and the stream side's batches are joined as they arrive.
 *
 * <p>The null-aware anti join Spark plans for {@code NOT IN} (one key, the right side built) keeps a row when the
 * subquery is empty, and otherwise only when neither its key nor any of the subquery's is null and the key is not
 * among the subquery's. Either broadcast says which case holds (it is empty, or has a null key), so a build with a
 * null key yields no rows, an empty one every row, and any other an anti join whose rows with a null key are
 * dropped.
 */
public final class GpuBroadcastHashJoinExec extends GpuHashJoinExec {
  private final boolean nullAware;

  public GpuBroadcastHashJoinExec(Seq<Expression> leftKeys, Seq<Expression> rightKeys, JoinSpec spec,
      Option<Expression> condition, SparkPlan left, SparkPlan right, Seq<Attribute> joinOutput,
      Partitioning partitioning, String timeZone, int chunkPairs, boolean nullAware) {
    super(leftKeys, rightKeys, spec, condition, left, right, joinOutput, partitioning, timeZone, chunkPairs,
        false);
    this.nullAware = nullAware;
  }

  /** The null test of a null-aware anti join's stream key, over the join's output (the stream side's columns). */
  public static Expression streamKeyIsNotNull(Seq<Expression> leftKeys) {
    return new IsNotNull(leftKeys.apply(0));
  }

  private boolean buildLeft() {
    return spec.buildSide() == JoinType.Side.LEFT;
  }

  @Override
  public RDD<ColumnarBatch> doExecuteColumnar() {
    PartitionPlan plan = partitionPlan();
    Broadcast<Object> broadcast = (buildLeft() ? left : right).executeBroadcast();
    SparkPlan streamSide = buildLeft() ? right : left;
    if (nullAware) {
      Object build = broadcast.value();  // the driver holds it already
      boolean nullKey = build instanceof ColumnarBroadcast c ? c.anyNullKey()
          : build == HashedRelationWithAllNullKeys$.MODULE$;
      if (nullKey) return Partitions.map(streamSide.executeColumnar(), stream -> java.util.Collections.emptyIterator());
      boolean empty = build instanceof ColumnarBroadcast c ? c.rows() == 0 : build == EmptyHashedRelation$.MODULE$;
      if (empty) return streamSide.executeColumnar();
    }
    long id = broadcast.id();
    Expression keyIsNotNull = nullAware ? streamKeyIsNotNull(leftKeys) : null;
    List<Attribute> output = CollectionConverters.asJava(joinOutput);
    String zone = timeZone;
    return Partitions.map(streamSide.executeColumnar(), stream -> {
      TaskGpu gpu = TaskGpu.get();
      JoinBuildSide build = BroadcastBuilds.acquire(gpu.device(), id, broadcast.value(), plan);
      Iterator<ColumnarBatch> joined = new HashJoinIterator(gpu, build,
          () -> BroadcastBuilds.release(gpu.device(), id), stream, plan);
      return keyIsNotNull == null ? joined : withNonNullKeys(joined, keyIsNotNull, output, zone, gpu);
    });
  }

  /** The batches with the rows whose stream key is null dropped, on the device. */
  private static Iterator<ColumnarBatch> withNonNullKeys(Iterator<ColumnarBatch> batches, Expression keyIsNotNull,
      List<Attribute> output, String timeZone, TaskGpu gpu) {
    // with the string columns the key derives (a substring key reads its substring)
    MatchingProgram program = ExpressionCompiler.compilePredicate(keyIsNotNull, output,
        new ExpressionSettings(false, timeZone, family -> true)).matchingProgram();
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return batches.hasNext();
      }

      @Override
      public ColumnarBatch next() {
        try (DeviceBatch joined = DeviceBatches.unwrap(batches.next())) {
          return DeviceBatches.wrap(program.filter(gpu.backend(), joined, gpu.stream()), output);
        }
      }
    };
  }

  @Override
  protected GpuHashJoinExec withChildren(SparkPlan newLeft, SparkPlan newRight) {
    return new GpuBroadcastHashJoinExec(leftKeys, rightKeys, spec, condition, newLeft, newRight, joinOutput,
        partitioning, timeZone, chunkPairs, nullAware);
  }

  @Override
  protected Object[] constructorArgs() {
    return new Object[] {leftKeys, rightKeys, spec, condition, left, right, joinOutput, partitioning, timeZone,
        chunkPairs, nullAware};
  }

}
