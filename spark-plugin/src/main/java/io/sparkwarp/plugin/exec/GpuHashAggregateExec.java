package io.sparkwarp.plugin.exec;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeSet;
import org.apache.spark.sql.catalyst.expressions.AttributeSet$;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.Partial$;
import org.apache.spark.sql.catalyst.plans.physical.Distribution;
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning;
import org.apache.spark.sql.catalyst.plans.physical.Partitioning;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.adaptive.AQEShuffleReadExec;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Spark's hash, object-hash and sort aggregates on the GPU, in every mode: group-by hash aggregation of device
 * batches ({@link AggregatePartition}) into Spark's buffer layout (partial modes) or results (final modes), so the
 * CPU shuffle between a partial and a final aggregate works whichever side runs where.
 */
public final class GpuHashAggregateExec extends UnaryExec implements GpuExec {
  private final Seq<NamedExpression> groupingExpressions;
  private final Seq<AggregateExpression> aggregateExpressions;
  /** The result attribute of each aggregate expression (what final result expressions read). */
  private final Seq<Attribute> aggregateAttributes;
  private final Seq<NamedExpression> resultExpressions;
  /** The distribution Spark's aggregate required of its child, kept so AQE re-plans the same exchanges. */
  private final Seq<Distribution> requiredChildDistribution;
  private final boolean ansi;
  private final String timeZone;
  /** Rows of per-batch buffers at which a partition merges them. */
  private final int mergeRows;
  /** Device bytes of buffers a partition keeps before it hands them on or spills them. */
  private final long stateBytes;

  public GpuHashAggregateExec(Seq<NamedExpression> groupingExpressions, Seq<AggregateExpression> aggregateExpressions,
      Seq<Attribute> aggregateAttributes, Seq<NamedExpression> resultExpressions,
      Seq<Distribution> requiredChildDistribution, SparkPlan child, boolean ansi, String timeZone, int mergeRows,
      long stateBytes) {
    super(child, GpuMetrics.aggregate(child.sparkContext()));
    this.groupingExpressions = groupingExpressions;
    this.aggregateExpressions = aggregateExpressions;
    this.aggregateAttributes = aggregateAttributes;
    this.resultExpressions = resultExpressions;
    this.requiredChildDistribution = requiredChildDistribution;
    this.ansi = ansi;
    this.timeZone = timeZone;
    this.mergeRows = mergeRows;
    this.stateBytes = stateBytes;
  }

  @Override
  public Seq<Attribute> output() {
    return attributesOf(resultExpressions);
  }

  /**
   * What this node makes rather than reads, as Spark's aggregates declare it, so the plan does not flag the
   * aggregates' results and buffers as missing input ("!" in explain).
   */
  @Override
  public AttributeSet producedAttributes() {
    List<Expression> produced = new ArrayList<>(CollectionConverters.asJava(aggregateAttributes));
    List<NamedExpression> grouping = CollectionConverters.asJava(groupingExpressions);
    for (NamedExpression result : CollectionConverters.asJava(resultExpressions)) {
      if (!grouping.contains(result)) produced.add(result.toAttribute());
    }
    List<Attribute> childOutput = CollectionConverters.asJava(child().output());
    for (AggregateExpression e : CollectionConverters.asJava(aggregateExpressions)) {
      produced.addAll(CollectionConverters.asJava(e.aggregateFunction().aggBufferAttributes()));
      for (Attribute input : CollectionConverters.asJava(e.aggregateFunction().inputAggBufferAttributes())) {
        if (!childOutput.contains(input)) produced.add(input);
      }
    }
    return AttributeSet$.MODULE$.apply(CollectionConverters.asScala(produced));
  }

  @Override
  public Partitioning outputPartitioning() {
    return childPartitioningIfKept();
  }

  /** Groups come out in no particular order. */
  @Override
  public Seq<SortOrder> outputOrdering() {
    return scala.collection.immutable.List$.MODULE$.empty();
  }

  @Override
  public Seq<Distribution> requiredChildDistribution() {
    return requiredChildDistribution;
  }

  /** What a partition runs: the functions' plans, the projections' inputs, the result expressions (final modes). */
  AggregatePartition.Spec spec() {
    List<AggregateFunctionPlan> functions = new ArrayList<>();
    for (AggregateExpression e : CollectionConverters.asJava(aggregateExpressions)) {
      functions.add(AggregateFunctionPlan.of(e, timeZone));
    }
    boolean finalMode = functions.stream().anyMatch(AggregateFunctionPlan::finalResult);
    List<NamedExpression> grouping = CollectionConverters.asJava(groupingExpressions);
    List<Attribute> resultInput = new ArrayList<>();
    grouping.forEach(g -> resultInput.add(g.toAttribute()));
    resultInput.addAll(CollectionConverters.asJava(aggregateAttributes));
    return new AggregatePartition.Spec(grouping.stream().map(g -> (Expression) g).toList(), functions,
        CollectionConverters.asJava(child.output()), resultInput,
        finalMode ? CollectionConverters.asJava(resultExpressions) : null, CollectionConverters.asJava(output()), ansi,
        timeZone, mergeRows, stateBytes, partialOnly(), upstreamPartitions());
  }

  /**
   * Whether this is a partial aggregate (every function in Partial mode), whose output a merge always follows; an
   * aggregate without functions may be the distinct rewrite's deduplication, so it is not one.
   */
  private boolean partialOnly() {
    List<AggregateExpression> all = CollectionConverters.asJava(aggregateExpressions);
    return !all.isEmpty() && all.stream().allMatch(e -> e.mode() == Partial$.MODULE$);
  }

  /**
   * The partition count of the hash shuffle that feeds this aggregate, read below AQE's reader (whose coalesced
   * count is not the modulus the rows were routed by); 1 when the input is not hash partitioned.
   */
  private int upstreamPartitions() {
    SparkPlan source = child instanceof AQEShuffleReadExec read ? read.child() : child;
    return source.outputPartitioning() instanceof HashPartitioning hash ? hash.numPartitions() : 1;
  }

  @Override
  public RDD<ColumnarBatch> doExecuteColumnar() {
    return Partitions.map(child.executeColumnar(), new AggregatePartition(spec(), this));
  }

  @Override
  public UnaryExec withChild(SparkPlan newChild) {
    return new GpuHashAggregateExec(groupingExpressions, aggregateExpressions, aggregateAttributes, resultExpressions,
        requiredChildDistribution, newChild, ansi, timeZone, mergeRows, stateBytes);
  }

  @Override
  protected Object[] constructorArgs() {
    return new Object[] {groupingExpressions, aggregateExpressions, aggregateAttributes, resultExpressions,
        requiredChildDistribution, child, ansi, timeZone, mergeRows, stateBytes};
  }
}
