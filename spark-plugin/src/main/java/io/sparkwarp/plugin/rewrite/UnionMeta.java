package io.sparkwarp.plugin.rewrite;

import io.sparkwarp.plugin.exec.GpuUnionExec;
import java.util.List;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.UnionExec;
import scala.jdk.javaapi.CollectionConverters;

/** UnionExec: on the GPU when a child is, so that its device batches stay there. */
final class UnionMeta extends ExecMeta {
  UnionMeta(UnionExec union, RewriteContext context, Overrides.ExecRule rule) {
    super(union, context, rule);
  }

  @Override
  protected void tagSelf() {
    if (children.stream().noneMatch(ExecMeta::canRunOnGpu)) {
      willNotWorkOnGpu("no input is on the GPU: a GPU union would only add transfers");
    }
  }

  @Override
  protected SparkPlan convertToGpu(List<SparkPlan> gpuChildren) {
    return new GpuUnionExec(CollectionConverters.asScala(gpuChildren).toList());
  }
}
