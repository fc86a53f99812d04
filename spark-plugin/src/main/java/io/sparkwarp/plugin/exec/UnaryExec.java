package io.sparkwarp.plugin.exec;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * What a Java operator with one child owes Spark's tree machinery: children, copying with a new child, and the
 * Product view of its constructor arguments (which Spark's makeCopy and canonicalisation rebuild it from, so
 * {@link #constructorArgs()} must list them in constructor order), plus value equality like Scala's case classes.
 */
public abstract class UnaryExec extends SparkPlan {
  protected final SparkPlan child;
  private final scala.collection.immutable.Map<String, SQLMetric> metrics;

  protected UnaryExec(SparkPlan child, Map<String, SQLMetric> metrics) {
    this.child = child;
    this.metrics = GpuMetrics.toScala(metrics);
  }

  public SparkPlan child() {
    return child;
  }

  /** This operator with {@code newChild} in place of its child. */
  public abstract UnaryExec withChild(SparkPlan newChild);

  /** The constructor's arguments, in order. */
  protected abstract Object[] constructorArgs();

  /** The child's columns, for operators that keep them (filters, transitions). */
  @Override
  public Seq<Attribute> output() {
    return child.output();
  }

  /** Every sparkwarp operator is columnar: device batches, or host Arrow batches out of GpuToHostExec. */
  @Override
  public boolean supportsColumnar() {
    return true;
  }

  /** Spark asks a columnar operator for rows only through a transition, so a direct request is a planning bug. */
  @Override
  public RDD<InternalRow> doExecute() {
    throw new IllegalStateException(nodeName() + " is columnar only: Spark reads its output through a transition");
  }

  @Override
  public Seq<SparkPlan> children() {
    return CollectionConverters.asScala(List.of(child)).toList();
  }

  @Override
  public SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
    return withChild(newChildren.apply(0));
  }

  @Override
  public scala.collection.immutable.Map<String, SQLMetric> metrics() {
    return metrics;
  }

  protected SQLMetric metric(String name) {
    return metrics.apply(name);
  }

  @Override
  public int productArity() {
    return constructorArgs().length;
  }

  @Override
  public Object productElement(int n) {
    return constructorArgs()[n];
  }

  @Override
  public boolean canEqual(Object that) {
    return that != null && that.getClass() == getClass();
  }

  @Override
  public boolean equals(Object o) {
    return o == this || (canEqual(o) && Arrays.equals(constructorArgs(), ((UnaryExec) o).constructorArgs()));
  }

  @Override
  public int hashCode() {
    return 31 * getClass().hashCode() + Arrays.hashCode(constructorArgs());
  }
}
