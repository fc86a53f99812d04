package io.sparkwarp.plugin.exec;

import io.sparkwarp.plugin.shuffle.ColumnarShuffleSerializer;
import io.sparkwarp.plugin.shuffle.SliceAppender;
import java.util.Iterator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.ArrowUtils$;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.util.TaskCompletionListener;

/**
 * The reduce side of {@link GpuShuffleExchangeExec}: the slices a task reads (from every map task, in Spark's
 * order) appended into host Arrow batches of up to the target rows and bytes, ready for one upload (the upload
 * gathers them into pinned memory) or for Spark's ColumnarToRowExec. A batch stays valid until the next is asked
 * for, as with Spark's own columnar readers.
 */
final class SliceReader implements Partitions.PartitionFunction<Object, ColumnarBatch> {
  private final StructType schema;
  private final String timeZone;
  private final int targetRows;
  private final long targetBytes;

  SliceReader(StructType schema, String timeZone, int targetRows, long targetBytes) {
    this.schema = schema;
    this.timeZone = timeZone;
    this.targetRows = targetRows;
    this.targetBytes = targetBytes;
  }

  @Override
  public Iterator<ColumnarBatch> apply(Iterator<Object> slices) {
    Schema arrow = ArrowUtils$.MODULE$.toArrowSchema(schema, timeZone, true, false);  // (not serializable)
    TaskContext task = TaskContext.get();
    // ordinary memory: pinned memory is kept for transfers, and a CPU reader needs none
    BufferAllocator memory = ArrowUtils$.MODULE$.rootAllocator()
        .newChildAllocator("shuffle read of task " + task.taskAttemptId(), 0, Long.MAX_VALUE);
    Batches batches = new Batches(slices, new SliceAppender(arrow, memory));
    task.addTaskCompletionListener((TaskCompletionListener) ctx -> {
      batches.close();
      memory.close();
    });
    return batches;
  }

  /** Batches of slices; the writer makes no empty slice, so slices left means a batch left. */
  private final class Batches implements Iterator<ColumnarBatch> {
    private final Iterator<Object> slices;
    private final SliceAppender appender;
    private ColumnarBatch current;

    Batches(Iterator<Object> slices, SliceAppender appender) {
      this.slices = slices;
      this.appender = appender;
    }

    @Override
    public boolean hasNext() {
      return slices.hasNext();
    }

    @Override
    public ColumnarBatch next() {
      closeCurrent();  // only now: the caller is done with it
      while (slices.hasNext() && appender.rows() < targetRows && appender.bytes() < targetBytes) {
        appender.append(ColumnarShuffleSerializer.slice(slices.next()));
      }
      VectorSchemaRoot root = appender.take();
      if (root == null) throw new java.util.NoSuchElementException();
      ColumnVector[] columns = root.getFieldVectors().stream().map(ArrowColumnVector::new)
          .toArray(ColumnVector[]::new);
      current = new ColumnarBatch(columns, root.getRowCount());
      return current;
    }

    private void closeCurrent() {
      if (current != null) {
        current.close();
        current = null;
      }
    }

    void close() {
      closeCurrent();
      appender.close();
    }
  }
}
