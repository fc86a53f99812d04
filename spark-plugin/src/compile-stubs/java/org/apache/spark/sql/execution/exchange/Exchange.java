package org.apache.spark.sql.execution.exchange;

import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.UnaryExecNode;
import scala.collection.immutable.IndexedSeq;
import scala.collection.immutable.Seq;

/**
 * COMPILE-TIME VIEW ONLY, never compiled into the jar (javac reads it through -sourcepath with -implicit:none; at
 * run time Spark's own Exchange is loaded). Spark's Exchange, compiled by Scala, has final methods (mapChildren,
 * withNewChildrenInternal) whose class-file signatures have no generics; javac then rejects any Java subclass
 * ("cannot implement mapChildren(Function1<T,T>)"). This view declares the same members with their generic types,
 * so javac accepts the subclass and emits exactly the bridges a Scala subclass has (child(), withNewChildInternal);
 * its method bodies never run.
 */
public abstract class Exchange extends SparkPlan implements UnaryExecNode {
  @Override
  public final Seq<SparkPlan> children() {
    throw new AssertionError("compile-time view");
  }

  @Override
  public final SparkPlan withNewChildrenInternal(IndexedSeq<SparkPlan> newChildren) {
    throw new AssertionError("compile-time view");
  }

  @Override
  public Seq<Attribute> output() {
    throw new AssertionError("compile-time view");
  }
}
