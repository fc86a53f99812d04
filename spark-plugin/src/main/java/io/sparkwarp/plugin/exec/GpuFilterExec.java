package io.sparkwarp.plugin.exec;

import io.sparkwarp.plugin.expr.ExpressionCompiler;
import io.sparkwarp.plugin.expr.ExpressionSettings;
import io.sparkwarp.strings.MatchOptions;
import java.util.List;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.execution.FilterExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/** FilterExec on the GPU: the condition as one expression program, the surviving rows compacted on the device. */
public final class GpuFilterExec extends UnaryExec implements GpuExec {
  private final Expression condition;
  private final boolean ansi;
  private final String timeZone;
  private final MatchOptions strings;
  /** Spark's FilterExec over the same child, kept for its output: planning asks for the output many times. */
  private transient FilterExec sparkFilter;

  public GpuFilterExec(Expression condition, SparkPlan child, boolean ansi, String timeZone, MatchOptions strings) {
    super(child, GpuMetrics.expression(child.sparkContext()));
    this.condition = condition;
    this.ansi = ansi;
    this.timeZone = timeZone;
    this.strings = strings;
  }

  public Expression condition() {
    return condition;
  }

  /**
   * Spark's FilterExec's output: a column the condition proves non-null (isnotnull(a) AND ...) is marked so. Plans
   * compare it: a broadcast's mode binds the build keys with their nullability, and adaptive execution's
   * re-planning, seeing this side differ from Spark's, would broadcast a finished broadcast stage again and drop
   * the whole re-optimisation (no join conversion, no partition coalescing) as invalid.
   */
  @Override
  public Seq<Attribute> output() {
    if (sparkFilter == null) sparkFilter = new FilterExec(condition, child);
    return sparkFilter.output();
  }

  @Override
  public RDD<ColumnarBatch> doExecuteColumnar() {
    Expression cond = condition;
    List<Attribute> input = new java.util.ArrayList<>(CollectionConverters.asJava(child.output()));
    boolean ansiMode = ansi;
    String tz = timeZone;
    StringMatching matching = StringMatching.of(this, strings);
    return Partitions.map(child.executeColumnar(), new ExpressionBatchFunction(
        () -> ExpressionCompiler.compilePredicate(cond, input, new ExpressionSettings(ansiMode, tz, f -> true)),
        (gpu, compiled, batch) -> compiled.matchingProgram(matching.options(), matching::record)
            .filter(gpu.backend(), batch, gpu.stream()),
        CpuEvaluation.filter(cond, input, tz), input, this));
  }

  @Override
  public UnaryExec withChild(SparkPlan newChild) {
    return new GpuFilterExec(condition, newChild, ansi, timeZone, strings);
  }

  @Override
  protected Object[] constructorArgs() {
    return new Object[] {condition, child, ansi, timeZone, strings};
  }
}
