package io.sparkwarp.plugin.rewrite;

import io.sparkwarp.join.DeviceHashJoin;
import io.sparkwarp.join.JoinType;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.plugin.config.JoinAlgorithm;
import io.sparkwarp.plugin.config.WarpConf;
import io.sparkwarp.plugin.exec.AdaptiveMerge;
import io.sparkwarp.plugin.exec.GpuBroadcastHashJoinExec;
import io.sparkwarp.plugin.exec.GpuShuffledHashJoinExec;
import io.sparkwarp.plugin.exec.GpuSortMergeJoinExec;
import io.sparkwarp.plugin.exec.JoinSpec;
import io.sparkwarp.plugin.exec.KeyProjection;
import io.sparkwarp.plugin.exec.ResidualCondition;
import io.sparkwarp.plugin.expr.ExpressionCompiler;
import io.sparkwarp.plugin.types.SparkTypes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Coalesce;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.optimizer.BuildLeft$;
import org.apache.spark.sql.catalyst.optimizer.BuildSide;
import org.apache.spark.sql.catalyst.plans.FullOuter$;
import org.apache.spark.sql.catalyst.plans.Inner$;
import org.apache.spark.sql.catalyst.plans.LeftAnti$;
import org.apache.spark.sql.catalyst.plans.LeftOuter$;
import org.apache.spark.sql.catalyst.plans.LeftSemi$;
import org.apache.spark.sql.catalyst.plans.RightOuter$;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.joins.BroadcastHashJoinExec;
import org.apache.spark.sql.execution.joins.ShuffledHashJoinExec;
import org.apache.spark.sql.execution.joins.SortMergeJoinExec;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StringType;
import scala.Option;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Spark's three equi-joins. Shuffled hash and sort-merge joins become {@link GpuShuffledHashJoinExec} (which, under
 * {@code spark.warp.join.algorithm=auto}, merges the partitions whose build keys repeat: {@link AdaptiveMerge}), or
 * {@link GpuSortMergeJoinExec} under {@code spark.warp.join.algorithm=mergePath} (either way a sort-merge join's sorted
 * inputs are not needed, so the sorts Spark put under it go: the merge join sorts on the device); a broadcast hash
 * join becomes {@link GpuBroadcastHashJoinExec} over its broadcast exchange, the GPU one or Spark's
 * ({@link BroadcastExchangeMeta}). Keys are of a type the kernels compare: columns, or expressions the device
 * computes (Spark's rewrite of {@code <=>} into a coalesce/isnull pair of keys is recognised as one null-safe key).
 * A residual condition runs on the device for every join type.
 */
final class JoinMeta extends ExecMeta {
  private final Seq<Expression> leftKeys;
  private final Seq<Expression> rightKeys;
  private final org.apache.spark.sql.catalyst.plans.JoinType sparkType;
  private final Option<Expression> condition;
  private final BuildSide sparkBuildSide;
  private final boolean broadcast;
  /** The null-aware anti join Spark plans for NOT IN (broadcast, one key, the right side built). */
  private boolean nullAware;
  private JoinSpec spec;

  JoinMeta(SparkPlan join, RewriteContext context, Overrides.ExecRule rule) {
    super(join, context, rule);
    if (join instanceof ShuffledHashJoinExec j) {
      leftKeys = j.leftKeys();
      rightKeys = j.rightKeys();
      sparkType = j.joinType();
      condition = j.condition();
      sparkBuildSide = j.buildSide();
      broadcast = false;
    } else if (join instanceof BroadcastHashJoinExec j) {
      leftKeys = j.leftKeys();
      rightKeys = j.rightKeys();
      sparkType = j.joinType();
      condition = j.condition();
      sparkBuildSide = j.buildSide();
      broadcast = true;
      nullAware = j.isNullAwareAntiJoin();
    } else {
      SortMergeJoinExec j = (SortMergeJoinExec) join;
      leftKeys = j.leftKeys();
      rightKeys = j.rightKeys();
      sparkType = j.joinType();
      condition = j.condition();
      sparkBuildSide = null;  // a hash join chooses: the right side unless the right side is the outer one
      broadcast = false;
    }
  }

  @Override
  protected void tagSelf() {
    Optional<JoinType> type = joinType();
    if (type.isEmpty()) {
      willNotWorkOnGpu(sparkType + " joins are not supported");
      return;
    }
    JoinType.Side buildSide = sparkBuildSide != null
        ? (sparkBuildSide == BuildLeft$.MODULE$ ? JoinType.Side.LEFT : JoinType.Side.RIGHT)
        : (type.get() == JoinType.RIGHT_OUTER ? JoinType.Side.LEFT : JoinType.Side.RIGHT);
    spec = keys(type.get(), buildSide);
    if (broadcast && DeviceHashJoin.tracksBuildMatches(type.get(), buildSide)) {
      // every task probes the shared build with part of the stream side: none knows which build rows no row matched
      willNotWorkOnGpu("a broadcast " + sparkType + " join that keeps the build side's own rows is not supported");
    }
    if (nullAware) {
      ExpressionCompiler.compilePredicate(GpuBroadcastHashJoinExec.streamKeyIsNotNull(leftKeys),
          CollectionConverters.asJava(plan.output()), context.expressions())
          .reasons().forEach(r -> willNotWorkOnGpu("NOT IN key: " + r));
    }
    if (condition.isDefined()) {
      ResidualCondition.compile(condition.get(), sideOutput(0), sideOutput(1), context.expressions()).reasons()
          .forEach(r -> willNotWorkOnGpu("residual condition: " + r));
    }
  }

  private Optional<JoinType> joinType() {
    if (sparkType == Inner$.MODULE$) return Optional.of(JoinType.INNER);
    if (sparkType == LeftOuter$.MODULE$) return Optional.of(JoinType.LEFT_OUTER);
    if (sparkType == RightOuter$.MODULE$) return Optional.of(JoinType.RIGHT_OUTER);
    if (sparkType == FullOuter$.MODULE$) return Optional.of(JoinType.FULL_OUTER);
    if (sparkType == LeftSemi$.MODULE$) return Optional.of(JoinType.LEFT_SEMI);
    if (sparkType == LeftAnti$.MODULE$) return Optional.of(JoinType.LEFT_ANTI);
    return Optional.empty();
  }

  /**
   * The device keys, Spark's null-safe key pairs folded into one key each, or null with the reasons recorded. A key
   * that is not a column is computed on the device where the expression compiler can.
   */
  private JoinSpec keys(JoinType type, JoinType.Side buildSide) {
    List<Expression> lk = CollectionConverters.asJava(leftKeys);
    List<Expression> rk = CollectionConverters.asJava(rightKeys);
    List<Integer> sparkKeys = new ArrayList<>();
    List<Boolean> nullSafe = new ArrayList<>();
    for (int i = 0; i < lk.size(); i++) {
      boolean safe = i + 1 < lk.size() && isNullSafePair(lk.get(i), lk.get(i + 1))
          && isNullSafePair(rk.get(i), rk.get(i + 1));
      sparkKeys.add(i);
      nullSafe.add(safe);
      if (safe) i++;
    }
    if (sparkKeys.size() > JoinKeys.MAX_COLUMNS) {
      willNotWorkOnGpu(sparkKeys.size() + " join keys are more than the " + JoinKeys.MAX_COLUMNS + " supported");
      return null;
    }
    boolean[] safe = new boolean[nullSafe.size()];
    for (int i = 0; i < safe.length; i++) safe[i] = nullSafe.get(i);
    JoinSpec keys = new JoinSpec(type, buildSide, sparkKeys.stream().mapToInt(Integer::intValue).toArray(), safe);
    List<Expression> left = keys.deviceKeys(leftKeys);
    List<Expression> right = keys.deviceKeys(rightKeys);
    for (int i = 0; i < left.size(); i++) {
      Expression l = left.get(i);
      if (!l.dataType().equals(right.get(i).dataType()) || !joinable(l)) {
        willNotWorkOnGpu("join key " + l + " of type " + l.dataType().simpleString() + " is not supported "
            + "(int, long, date, timestamp, decimal up to 18 digits, string and binary keys are)");
        return null;
      }
    }
    List<String> reasons = new ArrayList<>(KeyProjection.compile(left, safe, sideOutput(0), context.expressions())
        .reasons());
    reasons.addAll(KeyProjection.compile(right, safe, sideOutput(1), context.expressions()).reasons());
    reasons.forEach(r -> willNotWorkOnGpu("join key: " + r));
    return reasons.isEmpty() ? keys : null;
  }

  private List<Attribute> sideOutput(int child) {
    return CollectionConverters.asJava(plan.children().apply(child).output());
  }

  /** Spark plans {@code a <=> b} as two keys: {@code coalesce(a, default)} and {@code isnull(a)}. */
  private static boolean isNullSafePair(Expression first, Expression second) {
    return first instanceof Coalesce c && c.children().size() == 2 && c.children().apply(1) instanceof Literal
        && second instanceof IsNull n && n.child().semanticEquals(c.children().apply(0));
  }

  private boolean joinable(Expression key) {
    return SparkTypes.deviceType(key.dataType(), "UTC").map(t -> switch (t.kind()) {
      case INT, DATE, LONG, TIMESTAMP, DECIMAL, STRING, BINARY -> true;
      default -> false;
    }).orElse(false);
  }

  /** The broadcast side stays the exchange (GPU or Spark's), which the join reads as a broadcast. */
  @Override
  protected boolean childStaysOnHost(int index) {
    return broadcast && index == (spec != null && spec.buildSide() == JoinType.Side.LEFT ? 0 : 1);
  }

  /** Whether this join runs on the GPU and reads {@code child} as its broadcast build side. */
  boolean readsBroadcastOnGpu(ExecMeta child) {
    return canRunOnGpu() && childStaysOnHost(children.indexOf(child));
  }

  /** A sort-merge join's children are sorted for it; a hash join does not need them sorted. */
  @Override
  protected SparkPlan unsortedForGpu(SparkPlan child) {
    return plan instanceof SortMergeJoinExec && child instanceof SortExec s && !s.global() ? s.child() : child;
  }

  @Override
  protected SparkPlan convertToGpu(List<SparkPlan> children) {
    if (broadcast) {
      return new GpuBroadcastHashJoinExec(leftKeys, rightKeys, spec, condition, children.get(0), children.get(1),
          plan.output(), plan.outputPartitioning(), context.expressions().timeZone(), context.batchRows(),
          nullAware);
    }
    if (context.conf().get(WarpConf.JOIN_ALGORITHM) == JoinAlgorithm.MERGEPATH) {
      return new GpuSortMergeJoinExec(leftKeys, rightKeys, spec, condition, children.get(0), children.get(1),
          plan.output(), plan.outputPartitioning(), context.expressions().timeZone(), context.batchRows());
    }
    AdaptiveMerge adaptive = context.conf().get(WarpConf.JOIN_ALGORITHM) == JoinAlgorithm.AUTO
        && keysFitOneWord() ? new AdaptiveMerge(context.conf().get(WarpConf.AUTO_MERGE_BYTES)) : null;
    return new GpuShuffledHashJoinExec(leftKeys, rightKeys, spec, condition, children.get(0), children.get(1),
        plan.output(), plan.outputPartitioning(), context.expressions().timeZone(), context.batchRows(), adaptive,
        context.conf().get(WarpConf.JOIN_SPREAD_BYTES));
  }

  /**
   * Whether the device keys are fixed-width and together at most 64 bits wide (a long, two ints, a date and an int),
   * so the merge join's sort takes its one-word path; strings and wide decimals sort many times slower.
   */
  private boolean keysFitOneWord() {
    long bits = 0;
    for (Expression key : spec.deviceKeys(leftKeys)) {
      DataType type = key.dataType();
      if (type instanceof StringType || type instanceof BinaryType
          || type instanceof DecimalType d && d.precision() > Decimal.MAX_LONG_DIGITS()) {
        return false;
      }
      bits += 8L * type.defaultSize();
    }
    return bits <= 64;
  }
}
