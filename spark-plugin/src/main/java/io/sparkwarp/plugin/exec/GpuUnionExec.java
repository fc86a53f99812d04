package io.sparkwarp.plugin.exec;

import java.util.Map;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.UnionExec;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;

/**
 * UnionExec over device batches: the children's batches pass through untouched, so a union between GPU operators
 * no longer downloads every batch only for the operator above to upload it again. Output, partitioning (Spark
 * 4.1's partitioning-aware union included) and the union of the children's RDDs are Spark's own UnionExec's, which
 * does not look inside the batches it concatenates.
 */
public final class GpuUnionExec extends SparkwarpExec implements GpuExec {
  private final Seq<SparkPlan> children;

  public GpuUnionExec(Seq<SparkPlan> children) {
    super(Map.of());
    this.children = children;
  }

  private UnionExec sparkUnion() {
    return new UnionExec(children);
  }

  @Override
  public Seq<Attribute> output() {
    return sparkUnion().output();
  }

  @Override
  public Partitioning outputPartitioning() {
    return sparkUnion().outputPartitioning();
  }

  @Override
  public Seq<SparkPlan> children() {
    return children;
  }

  @Override
  public RDD<ColumnarBatch> doExecuteColumnar() {
    return sparkUnion().executeColumnar();
  }

  @Override
  public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
    return new GpuUnionExec(newChildren.toList());
  }

  @Override
  protected Object[] constructorArgs() {
    return new Object[] {children};
  }
}
