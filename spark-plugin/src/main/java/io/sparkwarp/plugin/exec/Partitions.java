package io.sparkwarp.plugin.exec;

import java.io.Serializable;
import java.util.Iterator;
import org.apache.spark.rdd.RDD;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.jdk.javaapi.CollectionConverters;
import scala.reflect.ClassTag$;
import scala.reflect.ClassTag;
import scala.runtime.AbstractFunction1;
import scala.runtime.AbstractFunction2;

/** Runs a Java function over every partition of an RDD, the way Spark's own operators map their partitions. */
final class Partitions {
  private Partitions() {}

  /** A per-partition function that travels to the executors with the plan. */
  interface BatchFunction<T> extends Serializable {
    Iterator<ColumnarBatch> apply(Iterator<T> input);
  }

  static <T> RDD<ColumnarBatch> map(RDD<T> input, BatchFunction<T> f) {
    return mapTo(input, f::apply, ColumnarBatch.class);
  }

  /** A per-partition function of any output type that travels to the executors with the plan. */
  interface PartitionFunction<T, R> extends Serializable {
    Iterator<R> apply(Iterator<T> input);
  }

  /** @param outputClass R's class, for Spark's ClassTag (the erased class of a generic R such as Product2) */
  @SuppressWarnings("unchecked")
  static <T, R> RDD<R> mapTo(RDD<T> input, PartitionFunction<T, R> f, Class<?> outputClass) {
    return input.mapPartitionsInternal(new Mapper<>(f), false, (ClassTag<R>) ClassTag$.MODULE$.apply(outputClass));
  }

  /**
   * {@link #mapTo} for a function whose output depends on the order of its input (Spark's isOrderSensitive): over an
   * unordered input (a shuffle read) Spark then deems the result indeterminate, so a lost output reruns the whole
   * stage and the stages that read it, not one task.
   */
  @SuppressWarnings("unchecked")
  static <T, R> RDD<R> mapToOrderSensitive(RDD<T> input, PartitionFunction<T, R> f, Class<?> outputClass) {
    return input.mapPartitionsWithIndexInternal(new IndexedMapper<>(new Mapper<>(f)), false, true,
        (ClassTag<R>) ClassTag$.MODULE$.apply(outputClass));
  }

  /** A function of two co-partitioned batch inputs that travels to the executors with the plan. */
  interface ZipFunction extends Serializable {
    Iterator<ColumnarBatch> apply(Iterator<ColumnarBatch> left, Iterator<ColumnarBatch> right);
  }

  static RDD<ColumnarBatch> zip(RDD<ColumnarBatch> left, RDD<ColumnarBatch> right, ZipFunction f) {
    ClassTag<ColumnarBatch> tag = ClassTag$.MODULE$.apply(ColumnarBatch.class);
    return left.zipPartitions(right, false, new Zipper(f), tag, tag);
  }

  private static final class Zipper extends AbstractFunction2<scala.collection.Iterator<ColumnarBatch>,
      scala.collection.Iterator<ColumnarBatch>, scala.collection.Iterator<ColumnarBatch>> implements Serializable {
    private final ZipFunction f;

    Zipper(ZipFunction f) {
      this.f = f;
    }

    @Override
    public scala.collection.Iterator<ColumnarBatch> apply(scala.collection.Iterator<ColumnarBatch> left,
        scala.collection.Iterator<ColumnarBatch> right) {
      return CollectionConverters.asScala(f.apply(CollectionConverters.asJava(left), CollectionConverters.asJava(right)));
    }
  }

  /** A {@link Mapper} under Spark's indexed signature; the index is the task's partition, which it does not need. */
  private static final class IndexedMapper<T, R> extends AbstractFunction2<Object, scala.collection.Iterator<T>,
      scala.collection.Iterator<R>> implements Serializable {
    private final Mapper<T, R> mapper;

    IndexedMapper(Mapper<T, R> mapper) {
      this.mapper = mapper;
    }

    @Override
    public scala.collection.Iterator<R> apply(Object index, scala.collection.Iterator<T> input) {
      return mapper.apply(input);
    }
  }

  private static final class Mapper<T, R> extends AbstractFunction1<scala.collection.Iterator<T>,
      scala.collection.Iterator<R>> implements Serializable {
    private final PartitionFunction<T, R> f;

    Mapper(PartitionFunction<T, R> f) {
      this.f = f;
    }

    @Override
    public scala.collection.Iterator<R> apply(scala.collection.Iterator<T> input) {
      return CollectionConverters.asScala(f.apply(CollectionConverters.asJava(input)));
    }
  }
}
