package io.sparkwarp.plugin.exec;

import io.sparkwarp.join.JoinType;
import io.sparkwarp.plugin.expr.ExpressionSettings;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.execution.SparkPlan;
import scala.Option;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What the GPU equi-joins (hash and merge) share: two children, the Spark join's output and partitioning (kept, so
 * operators planned around the join still see what they were planned for), the resolved {@link JoinSpec}, Spark's
 * keys (key expressions are computed on the device) and the residual condition, compiled per partition on the
 * executor.
 */
public abstract class GpuHashJoinExec extends SparkwarpExec implements GpuExec {
  protected final Seq<Expression> leftKeys;
  protected final Seq<Expression> rightKeys;
  protected final JoinSpec spec;
  protected final Option<Expression> condition;
  protected final SparkPlan left;
  protected final SparkPlan right;
  protected final Seq<Attribute> joinOutput;
  protected final Partitioning partitioning;
  protected final String timeZone;
  protected final int chunkPairs;

  /** @param shuffled a join of shuffled partitions, which may be merged (it reports how many were) */
  protected GpuHashJoinExec(Seq<Expression> leftKeys, Seq<Expression> rightKeys, JoinSpec spec,
      Option<Expression> condition, SparkPlan left, SparkPlan right, Seq<Attribute> joinOutput,
      Partitioning partitioning, String timeZone, int chunkPairs, boolean shuffled) {
    super(GpuMetrics.join(left.sparkContext(), shuffled));
    this.leftKeys = leftKeys;
    this.rightKeys = rightKeys;
    this.spec = spec;
    this.condition = condition;
    this.left = left;
    this.right = right;
    this.joinOutput = joinOutput;
    this.partitioning = partitioning;
    this.timeZone = timeZone;
    this.chunkPairs = chunkPairs;
  }

  public JoinSpec spec() {
    return spec;
  }

  @Override
  public Seq<Attribute> output() {
    return joinOutput;
  }

  @Override
  public Partitioning outputPartitioning() {
    return partitioning;
  }

  @Override
  public Seq<SparkPlan> children() {
    return CollectionConverters.asScala(List.of(left, right)).toList();
  }

  @Override
  public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
    return withChildren(newChildren.apply(0), newChildren.apply(1));
  }

  /** This join over new children. */
  protected abstract GpuHashJoinExec withChildren(SparkPlan newLeft, SparkPlan newRight);

  /** Both joins take the same arguments, in this order. */
  @Override
  protected Object[] constructorArgs() {
    return new Object[] {leftKeys, rightKeys, spec, condition, left, right, joinOutput, partitioning, timeZone,
        chunkPairs};
  }

  /** What a partition needs to run the join, serialisable with the closure. */
  protected final PartitionPlan partitionPlan() {
    return new PartitionPlan(spec, CollectionConverters.asJava(joinOutput), CollectionConverters.asJava(left.output()),
        CollectionConverters.asJava(right.output()), spec.deviceKeys(leftKeys), spec.deviceKeys(rightKeys),
        condition.isDefined() ? condition.get() : null, timeZone, chunkPairs, JoinMetrics.of(this),
        RetryMetrics.of(this));
  }

  /**
   * The serialisable part of a join's partitions: the outputs of the join and of its two sides, each side's device
   * keys, and the residual condition (null without one), compiled on the executor.
   */
  record PartitionPlan(JoinSpec spec, List<Attribute> output, List<Attribute> leftOutput,
      List<Attribute> rightOutput, List<Expression> leftKeys, List<Expression> rightKeys, Expression condition,
      String timeZone, int chunkPairs, JoinMetrics metrics, RetryMetrics retryMetrics)
      implements java.io.Serializable {
    PartitionPlan {
      output = List.copyOf(output);
      leftOutput = List.copyOf(leftOutput);
      rightOutput = List.copyOf(rightOutput);
      leftKeys = List.copyOf(leftKeys);
      rightKeys = List.copyOf(rightKeys);
    }

    private boolean buildLeft() {
      return spec.buildSide() == JoinType.Side.LEFT;
    }

    List<Attribute> buildOutput() {
      return buildLeft() ? leftOutput : rightOutput;
    }

    List<Attribute> streamOutput() {
      return buildLeft() ? rightOutput : leftOutput;
    }

    KeyProjection buildKeys() {
      return keys(spec.buildSide());
    }

    KeyProjection streamKeys() {
      return keys(buildLeft() ? JoinType.Side.RIGHT : JoinType.Side.LEFT);
    }

    /** The keys of one side. */
    KeyProjection keys(JoinType.Side side) {
      boolean left = side == JoinType.Side.LEFT;
      return KeyProjection.compile(left ? leftKeys : rightKeys, spec.nullSafe(), left ? leftOutput : rightOutput,
          settings());
    }

    /** The residual condition, or null without one. */
    ResidualCondition residual() {
      return condition == null ? null : ResidualCondition.compile(condition, leftOutput, rightOutput, settings());
    }

    /** Planning checked the session's switches; the executor compiles what planning accepted. */
    private ExpressionSettings settings() {
      return new ExpressionSettings(false, timeZone, f -> true);
    }
  }
}
