package io.sparkwarp.plugin.rewrite;

import io.sparkwarp.kernels.aggregate.AggregatePrimitives;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.batch.UnsupportedTypeException;
import io.sparkwarp.plugin.exec.AggregateFunctionPlan;
import io.sparkwarp.plugin.exec.ColumnProjection;
import io.sparkwarp.plugin.config.WarpConf;
import io.sparkwarp.plugin.exec.GpuHashAggregateExec;
import io.sparkwarp.plugin.expr.CompiledExpressions;
import io.sparkwarp.plugin.expr.ExpressionCompiler;
import io.sparkwarp.plugin.types.SparkTypes;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.execution.SortExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.aggregate.BaseAggregateExec;
import org.apache.spark.sql.execution.aggregate.SortAggregateExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Spark's HashAggregateExec, ObjectHashAggregateExec and SortAggregateExec, in every mode, become {@link
 * GpuHashAggregateExec} when every grouping key and every aggregate function runs on the device: count, sum and avg
 * of integral and decimal values, min and max of numbers, dates and timestamps (see {@code AggregateFunctionPlan}
 * for the reasons the others stay on the CPU). A sort aggregate's input needs no sort on the GPU.
 */
final class AggregateMeta extends ExecMeta {
  private final BaseAggregateExec aggregate;

  AggregateMeta(SparkPlan plan, RewriteContext context, Overrides.ExecRule rule) {
    super(plan, context, rule);
    this.aggregate = (BaseAggregateExec) plan;
  }

  @Override
  protected void tagSelf() {
    if (aggregate.isStreaming()) willNotWorkOnGpu("streaming aggregates are not supported");
    List<NamedExpression> grouping = CollectionConverters.asJava(aggregate.groupingExpressions());
    if (grouping.size() > AggregatePrimitives.MAX_KEYS) {
      willNotWorkOnGpu("grouping by " + grouping.size() + " keys (up to " + AggregatePrimitives.MAX_KEYS + ")");
    }
    String timeZone = context.expressions().timeZone();
    for (NamedExpression g : grouping) {
      SparkTypes.deviceType(((Expression) g).dataType(), timeZone).filter(t -> t.kind() == DeviceType.Kind.DECIMAL128)
          .ifPresent(t -> willNotWorkOnGpu("grouping by a " + t + " key is not supported"));
    }
    List<Expression> inputs = new ArrayList<>();
    grouping.forEach(g -> inputs.add((Expression) g));
    int finals = 0;
    int buffers = 0;
    int planned = 0;
    List<AggregateExpression> functions = CollectionConverters.asJava(aggregate.aggregateExpressions());
    for (AggregateExpression e : functions) {
      try {
        AggregateFunctionPlan f = AggregateFunctionPlan.of(e, timeZone);
        inputs.addAll(f.inputs());
        finals += f.finalResult() ? 1 : 0;
        buffers += f.bufferWidth();
        planned++;
      } catch (IllegalArgumentException | UnsupportedTypeException why) {
        willNotWorkOnGpu(why.getMessage());
      }
    }
    if (buffers > AggregatePrimitives.MAX_AGGREGATES) {
      willNotWorkOnGpu(buffers + " buffer columns (the device aggregates up to " + AggregatePrimitives.MAX_AGGREGATES
          + " at once)");
    }
    if (finals > 0 && finals < functions.size()) {
      willNotWorkOnGpu("partial and final aggregate modes in one operator are not supported");
    }
    List<Attribute> childOutput = CollectionConverters.asJava(aggregate.child().output());
    ColumnProjection.compile(inputs, childOutput, context.expressions()).reasons().forEach(this::willNotWorkOnGpu);
    if (finals > 0) {
      List<Attribute> resultInput = new ArrayList<>();
      grouping.forEach(g -> resultInput.add(g.toAttribute()));
      resultInput.addAll(CollectionConverters.asJava(aggregate.aggregateAttributes()));
      CompiledExpressions result = ExpressionCompiler.compileProjection(
          CollectionConverters.asJava(aggregate.resultExpressions()), resultInput, context.expressions());
      result.reasons().forEach(this::willNotWorkOnGpu);
    } else if (planned == functions.size() && plan.output().size() != grouping.size() + buffers) {
      willNotWorkOnGpu("a partial aggregate whose output is not its keys and buffers is not supported");
    }
  }

  @Override
  protected SparkPlan unsortedForGpu(SparkPlan child) {
    return plan instanceof SortAggregateExec && child instanceof SortExec s && !s.global() ? s.child() : child;
  }

  /** The buffers' share of the task: the setting, at most half of the device memory each task is counted for. */
  private long stateBytes() {
    return Math.min(context.conf().get(WarpConf.AGGREGATE_STATE_BYTES),
        Math.max(1, context.conf().get(WarpConf.TASK_DEVICE_RESERVE) / 2));
  }

  @Override
  protected SparkPlan convertToGpu(List<SparkPlan> gpuChildren) {
    return new GpuHashAggregateExec(aggregate.groupingExpressions(), aggregate.aggregateExpressions(),
        aggregate.aggregateAttributes(), aggregate.resultExpressions(), aggregate.requiredChildDistribution(),
        gpuChildren.get(0), context.expressions().ansi(), context.expressions().timeZone(), context.batchRows(),
        stateBytes());
  }
}
