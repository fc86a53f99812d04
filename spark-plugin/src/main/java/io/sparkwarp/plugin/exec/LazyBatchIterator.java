package io.sparkwarp.plugin.exec;

import java.util.Iterator;
import java.util.NoSuchElementException;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/** Batches made one at a time, when asked for: {@link #computeNext()} returns null once there are no more. */
abstract class LazyBatchIterator implements Iterator<ColumnarBatch> {
  private ColumnarBatch next;
  private boolean done;

  /** The next batch, or null at the end. */
  protected abstract ColumnarBatch computeNext();

  @Override
  public final boolean hasNext() {
    if (next == null && !done) {
      next = computeNext();
      done = next == null;
    }
    return next != null;
  }

  @Override
  public final ColumnarBatch next() {
    if (!hasNext()) throw new NoSuchElementException();
    ColumnarBatch result = next;
    next = null;
    return result;
  }
}
