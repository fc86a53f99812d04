package io.sparkwarp.plugin.exec;

import java.util.Arrays;
import java.util.Map;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;

/**
 * What a Java operator owes Spark's tree machinery: the Product view of its constructor arguments (which Spark's
 * makeCopy and canonicalisation rebuild it from, so {@link #constructorArgs()} must list them in constructor order),
 * value equality like Scala's case classes, its SQL metrics, and being columnar only.
 */
public abstract class SparkwarpExec extends SparkPlan {
  private final scala.collection.immutable.Map<String, SQLMetric> metrics;

  protected SparkwarpExec(Map<String, SQLMetric> metrics) {
    this.metrics = GpuMetrics.toScala(metrics);
  }

  /** The constructor's arguments, in order. */
  protected abstract Object[] constructorArgs();

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
  public scala.collection.immutable.Map<String, SQLMetric> metrics() {
    return metrics;
  }

  protected SQLMetric metric(String name) {
    return metrics.apply(name);
  }

  /** The metric, or null where this node has none of that name (lane utilisation on the host backend). */
  protected SQLMetric metricIfPresent(String name) {
    return metrics.contains(name) ? metrics.apply(name) : null;
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
    return o == this || (canEqual(o) && Arrays.equals(constructorArgs(), ((SparkwarpExec) o).constructorArgs()));
  }

  @Override
  public int hashCode() {
    return 31 * getClass().hashCode() + Arrays.hashCode(constructorArgs());
  }
}
