package io.sparkwarp.plugin.rewrite;

import io.sparkwarp.plugin.exec.GpuFilterExec;
import io.sparkwarp.plugin.expr.CompiledExpressions;
import io.sparkwarp.plugin.expr.ExpressionCompiler;
import java.util.List;
import org.apache.spark.sql.execution.FilterExec;
import org.apache.spark.sql.execution.SparkPlan;
import scala.jdk.javaapi.CollectionConverters;

/** FilterExec: on the GPU when its condition compiles into an expression program. */
final class FilterMeta extends ExecMeta {
  private final FilterExec filter;

  FilterMeta(FilterExec filter, RewriteContext context, Overrides.ExecRule rule) {
    super(filter, context, rule);
    this.filter = filter;
  }

  @Override
  protected void tagSelf() {
    CompiledExpressions compiled = ExpressionCompiler.compilePredicate(filter.condition(),
        CollectionConverters.asJava(filter.child().output()), context.expressions());
    compiled.reasons().forEach(this::willNotWorkOnGpu);
  }

  @Override
  protected SparkPlan convertToGpu(List<SparkPlan> gpuChildren) {
    return new GpuFilterExec(filter.condition(), gpuChildren.get(0), context.expressions().ansi(),
        context.expressions().timeZone(), context.strings());
  }
}
