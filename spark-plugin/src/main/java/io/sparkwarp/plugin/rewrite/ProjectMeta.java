package io.sparkwarp.plugin.rewrite;

import io.sparkwarp.plugin.exec.GpuProjectExec;
import io.sparkwarp.plugin.expr.CompiledExpressions;
import io.sparkwarp.plugin.expr.ExpressionCompiler;
import java.util.List;
import org.apache.spark.sql.execution.ProjectExec;
import org.apache.spark.sql.execution.SparkPlan;
import scala.jdk.javaapi.CollectionConverters;

/** ProjectExec: on the GPU when every output expression compiles into one expression program. */
final class ProjectMeta extends ExecMeta {
  private final ProjectExec project;

  ProjectMeta(ProjectExec project, RewriteContext context, Overrides.ExecRule rule) {
    super(project, context, rule);
    this.project = project;
  }

  @Override
  protected void tagSelf() {
    if (project.projectList().isEmpty()) {
      // Spark's "Project []" under count(*): only a row count, which no expression program makes
      willNotWorkOnGpu("a projection of no columns is not supported");
      return;
    }
    CompiledExpressions compiled = ExpressionCompiler.compileProjection(
        CollectionConverters.asJava(project.projectList()), CollectionConverters.asJava(project.child().output()),
        context.expressions());
    compiled.reasons().forEach(this::willNotWorkOnGpu);
  }

  @Override
  protected SparkPlan convertToGpu(List<SparkPlan> gpuChildren) {
    return new GpuProjectExec(project.projectList(), gpuChildren.get(0), context.expressions().ansi(),
        context.expressions().timeZone(), context.strings());
  }
}
