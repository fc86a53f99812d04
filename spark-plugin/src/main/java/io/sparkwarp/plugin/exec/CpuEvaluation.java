package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.plugin.runtime.TaskGpu;
import java.util.Iterator;
import java.util.List;
import java.util.function.UnaryOperator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.BasePredicate;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.Predicate$;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A GPU filter's or projection's partition evaluated by Spark's own CPU expressions, for when the operator could not
 * set the partition up on the device (an internal error there must not fail a query Spark can run): each device
 * batch is downloaded, its rows go through Spark's predicate or projection, and the result is uploaded again, so
 * the operators around it see device batches as usual. Slow, and only a way out.
 */
final class CpuEvaluation implements Partitions.BatchFunction<ColumnarBatch> {
  /** Spark's evaluation of one batch's rows, made per partition (code generation is not serialisable). */
  private interface RowsFunction extends java.io.Serializable {
    UnaryOperator<Iterator<InternalRow>> create(int partition);
  }

  private final RowsFunction rows;
  private final List<Attribute> input;
  private final List<Attribute> output;
  private final String timeZone;

  private CpuEvaluation(RowsFunction rows, List<Attribute> input, List<Attribute> output, String timeZone) {
    this.rows = rows;
    this.input = input;
    this.output = output;
    this.timeZone = timeZone;
  }

  /** The rows of {@code input} for which {@code condition} is true, as Spark's FilterExec evaluates it. */
  static CpuEvaluation filter(Expression condition, List<Attribute> input, String timeZone) {
    return new CpuEvaluation(partition -> {
      BasePredicate predicate = Predicate$.MODULE$.create(condition, CollectionConverters.asScala(input).toSeq());
      predicate.initialize(partition);
      return rows -> new FilteredRows(rows, predicate);
    }, input, input, timeZone);
  }

  /** {@code projectList} over {@code input}, as Spark's ProjectExec evaluates it. */
  static CpuEvaluation project(List<NamedExpression> projectList, List<Attribute> input, List<Attribute> output,
      String timeZone) {
    return new CpuEvaluation(partition -> {
      UnsafeProjection projection = UnsafeProjection.create(
          CollectionConverters.asScala(projectList.stream().map(e -> (Expression) e).toList()).toSeq(),
          CollectionConverters.asScala(input).toSeq());
      projection.initialize(partition);
      return rows -> new Iterator<>() {
        @Override
        public boolean hasNext() {
          return rows.hasNext();
        }

        @Override
        public InternalRow next() {
          return projection.apply(rows.next());
        }
      };
    }, input, output, timeZone);
  }

  @Override
  public Iterator<ColumnarBatch> apply(Iterator<ColumnarBatch> batches) {
    UnaryOperator<Iterator<InternalRow>> evaluate = rows.create(TaskContext.getPartitionId());
    List<String> names = input.stream().map(Attribute::name).toList();
    StructType outputSchema = DataTypeUtils.fromAttributes(CollectionConverters.asScala(output).toSeq());
    return new LazyBatchIterator() {
      @Override
      protected ColumnarBatch computeNext() {
        while (batches.hasNext()) {
          ColumnarBatch result = evaluate(batches.next(), evaluate, names, outputSchema);
          if (result != null) return result;
        }
        return null;
      }
    };
  }

  /** One batch down, through Spark, and up again; null when no row is left. */
  private ColumnarBatch evaluate(ColumnarBatch batch, UnaryOperator<Iterator<InternalRow>> evaluate,
      List<String> names, StructType outputSchema) {
    TaskGpu gpu = TaskGpu.get();
    gpu.acquireDevice();
    List<FieldVector> vectors;
    int rowCount;
    try (DeviceBatch in = DeviceBatches.unwrap(batch);
        ArrowDownload download = ArrowDownload.begin(gpu.backend(), in, names, gpu.hostAllocator(), gpu.stream())) {
      vectors = download.complete();
      rowCount = in.rowCount();
    }
    try (ColumnarBatch host = new ColumnarBatch(vectors.stream().map(ArrowColumnVector::new)
            .toArray(ColumnVector[]::new), rowCount);
        HostBatchBuilder builder = new HostBatchBuilder(outputSchema, timeZone, gpu.hostAllocator())) {
      builder.appendRows(evaluate.apply(host.rowIterator()), Integer.MAX_VALUE, Long.MAX_VALUE);
      try (VectorSchemaRoot root = builder.take()) {
        if (root == null) return null;
        DeviceBatch result = ArrowUpload.upload(gpu.backend(), root, gpu.stream());
        gpu.stream().synchronize();  // the pinned vectors are freed next
        return DeviceBatches.wrap(result, output);
      }
    }
  }

  /** The rows a predicate keeps. */
  private static final class FilteredRows implements Iterator<InternalRow> {
    private final Iterator<InternalRow> rows;
    private final BasePredicate predicate;
    private InternalRow next;

    FilteredRows(Iterator<InternalRow> rows, BasePredicate predicate) {
      this.rows = rows;
      this.predicate = predicate;
    }

    @Override
    public boolean hasNext() {
      while (next == null && rows.hasNext()) {
        InternalRow row = rows.next();
        if (predicate.eval(row)) next = row;
      }
      return next != null;
    }

    @Override
    public InternalRow next() {
      if (!hasNext()) throw new java.util.NoSuchElementException();
      InternalRow row = next;
      next = null;
      return row;
    }
  }
}
