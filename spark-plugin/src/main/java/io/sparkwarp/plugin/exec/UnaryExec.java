package io.sparkwarp.plugin.exec;

import java.util.List;
import java.util.Map;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.catalyst.plans.physical.UnknownPartitioning;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A sparkwarp operator with one child. By default it keeps the child's columns, partitioning and order (filters
 * and transitions do); operators that change them override.
 */
public abstract class UnaryExec extends SparkwarpExec {
  protected final SparkPlan child;

  protected UnaryExec(SparkPlan child, Map<String, SQLMetric> metrics) {
    super(metrics);
    this.child = child;
  }

  public SparkPlan child() {
    return child;
  }

  /** This operator with {@code newChild} in place of its child. */
  public abstract UnaryExec withChild(SparkPlan newChild);

  @Override
  public Seq<Attribute> output() {
    return child.output();
  }

  /** The attributes named expressions produce: the output of an operator that computes new columns. */
  protected static Seq<Attribute> attributesOf(Seq<? extends NamedExpression> expressions) {
    return CollectionConverters.asScala(
        CollectionConverters.asJava(expressions).stream().map(NamedExpression::toAttribute).toList()).toList();
  }

  @Override
  public Partitioning outputPartitioning() {
    return child.outputPartitioning();
  }

  @Override
  public Seq<SortOrder> outputOrdering() {
    return child.outputOrdering();
  }

  /** The child's partitioning while the columns it is on are still in this operator's output, else unknown. */
  protected Partitioning childPartitioningIfKept() {
    Partitioning p = child.outputPartitioning();
    return p instanceof Expression e && !e.references().subsetOf(outputSet())
        ? new UnknownPartitioning(p.numPartitions()) : p;
  }

  @Override
  public Seq<SparkPlan> children() {
    return CollectionConverters.asScala(List.of(child)).toList();
  }

  @Override
  public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
    return withChild(newChildren.apply(0));
  }
}
