package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.plugin.expr.ExpressionCompiler;
import io.sparkwarp.plugin.expr.ExpressionSettings;
import io.sparkwarp.strings.MatchOptions;
import java.util.List;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/** ProjectExec on the GPU: every output column computed by one expression program in one launch per batch. */
public final class GpuProjectExec extends UnaryExec implements GpuExec {
  private final Seq<NamedExpression> projectList;
  private final boolean ansi;
  private final String timeZone;
  private final MatchOptions strings;

  public GpuProjectExec(Seq<NamedExpression> projectList, SparkPlan child, boolean ansi, String timeZone,
      MatchOptions strings) {
    super(child, GpuMetrics.expression(child.sparkContext()));
    this.projectList = projectList;
    this.ansi = ansi;
    this.timeZone = timeZone;
    this.strings = strings;
  }

  public Seq<NamedExpression> projectList() {
    return projectList;
  }

  /** The child's partitioning survives only while the columns it is on are still there. */
  @Override
  public Partitioning outputPartitioning() {
    return childPartitioningIfKept();
  }

  /** A projection may drop or rename the columns an order is on, so none is promised. */
  @Override
  public Seq<SortOrder> outputOrdering() {
    return scala.collection.immutable.List$.MODULE$.empty();
  }

  @Override
  public Seq<Attribute> output() {
    return attributesOf(projectList);
  }

  @Override
  public RDD<ColumnarBatch> doExecuteColumnar() {
    List<NamedExpression> exprs = new java.util.ArrayList<>(CollectionConverters.asJava(projectList));
    List<Attribute> input = new java.util.ArrayList<>(CollectionConverters.asJava(child.output()));
    boolean ansiMode = ansi;
    String tz = timeZone;
    StringMatching matching = StringMatching.of(this, strings);
    List<Attribute> outputAttributes = new java.util.ArrayList<>(CollectionConverters.asJava(output()));
    return Partitions.map(child.executeColumnar(), new ExpressionBatchFunction(
        () -> ExpressionCompiler.compileProjection(exprs, input, new ExpressionSettings(ansiMode, tz, f -> true)),
        (gpu, compiled, batch) -> new DeviceBatch(compiled.matchingProgram(matching.options(), matching::record)
            .project(gpu.backend(), batch, gpu.stream()), batch.rowCount()),
        CpuEvaluation.project(exprs, input, outputAttributes, tz), outputAttributes, this));
  }

  @Override
  public UnaryExec withChild(SparkPlan newChild) {
    return new GpuProjectExec(projectList, newChild, ansi, timeZone, strings);
  }

  @Override
  protected Object[] constructorArgs() {
    return new Object[] {projectList, child, ansi, timeZone, strings};
  }
}
