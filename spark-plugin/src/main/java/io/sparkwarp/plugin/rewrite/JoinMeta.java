package io.sparkwarp.plugin.rewrite;

import io.sparkwarp.join.DeviceHashJoin;
import io.sparkwarp.join.JoinType;
import io.sparkwarp.plugin.exec.GpuBroadcastHashJoinExec;
import io.sparkwarp.plugin.exec.GpuShuffledHashJoinExec;
import io.sparkwarp.plugin.exec.JoinSpec;
import io.sparkwarp.plugin.expr.CompiledExpressions;
import io.sparkwarp.plugin.expr.ExpressionCompiler;
import io.sparkwarp.plugin.types.SparkTypes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
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
import scala.Option;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Spark's three equi-joins. Shuffled hash and sort-merge joins become {@link GpuShuffledHashJoinExec} (a sort-merge
 * join's sorted inputs are not needed, so the sorts Spark put under it go); a broadcast hash join becomes {@link
 * GpuBroadcastHashJoinExec} over Spark's own broadcast. Keys must be columns (Spark's rewrite of {@code <=>} into
 * a coalesce/isnull pair of keys is recognised as a null-safe key) of a type the kernels compare.
 */
final class JoinMeta extends ExecMeta {
  private final Seq<Expression> leftKeys;
  private final Seq<Expression> rightKeys;
  private final org.apache.spark.sql.catalyst.plans.JoinType sparkType;
  private final Option<Expression> condition;
  private final BuildSide sparkBuildSide;
  private final boolean broadcast;
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
      if (j.isNullAwareAntiJoin()) willNotWorkOnGpu("the null-aware anti join Spark plans for NOT IN is not supported");
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
      // a broadcast build is shared by the executor's tasks: none may record its own matches in it
      willNotWorkOnGpu("a broadcast " + sparkType + " join that keeps the build side's own rows is not supported");
    }
    if (condition.isDefined()) {
      if (type.get() != JoinType.INNER) {
        willNotWorkOnGpu("a residual condition on a " + sparkType + " join is not supported (inner joins only)");
      } else {
        CompiledExpressions compiled = ExpressionCompiler.compilePredicate(condition.get(),
            CollectionConverters.asJava(plan.output()), context.expressions());
        compiled.reasons().forEach(r -> willNotWorkOnGpu("residual condition: " + r));
      }
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

  /** The keys as column ordinals of each side, or null with the reasons recorded. */
  private JoinSpec keys(JoinType type, JoinType.Side buildSide) {
    List<Expression> lk = CollectionConverters.asJava(leftKeys);
    List<Expression> rk = CollectionConverters.asJava(rightKeys);
    List<Attribute> leftOut = CollectionConverters.asJava(plan.children().apply(0).output());
    List<Attribute> rightOut = CollectionConverters.asJava(plan.children().apply(1).output());
    List<int[]> pairs = new ArrayList<>();
    List<Boolean> nullSafe = new ArrayList<>();
    for (int i = 0; i < lk.size(); i++) {
      boolean safe = i + 1 < lk.size() && isNullSafePair(lk.get(i), lk.get(i + 1))
          && isNullSafePair(rk.get(i), rk.get(i + 1));
      Expression l = safe ? lk.get(i).children().apply(0) : lk.get(i);
      Expression r = safe ? rk.get(i).children().apply(0) : rk.get(i);
      int li = ordinal(l, leftOut);
      int ri = ordinal(r, rightOut);
      if (li < 0 || ri < 0) {
        willNotWorkOnGpu("join key " + (li < 0 ? l : r) + " is not a column (only column keys are supported)");
        return null;
      }
      if (!l.dataType().equals(r.dataType()) || !joinable(l)) {
        willNotWorkOnGpu("join key " + l + " of type " + l.dataType().simpleString() + " is not supported "
            + "(int, long, date, timestamp, decimal up to 18 digits, string and binary keys are)");
        return null;
      }
      pairs.add(new int[] {li, ri});
      nullSafe.add(safe);
      if (safe) i++;
    }
    if (pairs.size() > io.sparkwarp.kernels.join.JoinKeys.MAX_COLUMNS) {
      willNotWorkOnGpu(pairs.size() + " join keys are more than the " + io.sparkwarp.kernels.join.JoinKeys.MAX_COLUMNS
          + " supported");
      return null;
    }
    boolean[] safe = new boolean[nullSafe.size()];
    for (int i = 0; i < safe.length; i++) safe[i] = nullSafe.get(i);
    return new JoinSpec(type, buildSide, pairs.stream().mapToInt(p -> p[0]).toArray(),
        pairs.stream().mapToInt(p -> p[1]).toArray(), safe);
  }

  /** Spark plans {@code a <=> b} as two keys: {@code coalesce(a, default)} and {@code isnull(a)}. */
  private static boolean isNullSafePair(Expression first, Expression second) {
    return first instanceof Coalesce c && c.children().size() == 2 && c.children().apply(1) instanceof Literal
        && second instanceof IsNull n && n.child().semanticEquals(c.children().apply(0));
  }

  private static int ordinal(Expression e, List<Attribute> output) {
    if (!(e instanceof AttributeReference a)) return -1;
    for (int i = 0; i < output.size(); i++) {
      if (output.get(i).exprId().equals(a.exprId())) return i;
    }
    return -1;
  }

  private boolean joinable(Expression key) {
    return SparkTypes.deviceType(key.dataType(), "UTC").map(t -> switch (t.kind()) {
      case INT, DATE, LONG, TIMESTAMP, DECIMAL, STRING, BINARY -> true;
      default -> false;
    }).orElse(false);
  }

  /** The broadcast side stays Spark's broadcast exchange. */
  @Override
  protected boolean childStaysOnHost(int index) {
    return broadcast && index == (spec != null && spec.buildSide() == JoinType.Side.LEFT ? 0 : 1);
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
          plan.output(), plan.outputPartitioning(), context.expressions().timeZone(), context.batchRows());
    }
    return new GpuShuffledHashJoinExec(leftKeys, rightKeys, spec, condition, children.get(0), children.get(1),
        plan.output(), plan.outputPartitioning(), context.expressions().timeZone(), context.batchRows());
  }
}
