package io.sparkwarp.plugin.exec;

import io.sparkwarp.plugin.shuffle.SliceAppender;
import java.io.Serializable;
import java.util.Iterator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.ArrowUtils$;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * What {@link GpuBroadcastExchangeExec} broadcasts instead of Spark's HashedRelation: the build side's rows as the
 * compact columnar slices the GPU shuffle writes (one per device batch of the child), with what a null-aware anti
 * join asks of the whole side (whether it is empty, whether a key is null) answered once on the driver. Executors
 * append the slices into one host Arrow batch for one upload ({@link BroadcastBuilds}).
 */
public final class ColumnarBroadcast implements Serializable {
  private static final long serialVersionUID = 1L;

  private final StructType schema;
  private final String timeZone;
  private final byte[][] slices;
  private final long rows;
  /** Whether a row's key is null; only worked out for a null-aware anti join's build, else false. */
  private final boolean anyNullKey;

  /** @param nullAwareKey a null-aware anti join's key, bound to the rows' columns; null for any other join */
  ColumnarBroadcast(StructType schema, String timeZone, byte[][] slices, long rows, Expression nullAwareKey) {
    this.schema = schema;
    this.timeZone = timeZone;
    this.slices = slices;
    this.rows = rows;
    this.anyNullKey = nullAwareKey != null && nullInAnyRow(nullAwareKey);
  }

  /** Whether {@code key} evaluates to null for any row, read through Arrow on the host (a NOT IN list is small). */
  private boolean nullInAnyRow(Expression key) {
    try (BufferAllocator memory = ArrowUtils$.MODULE$.rootAllocator()
            .newChildAllocator("null keys of a broadcast", 0, Long.MAX_VALUE);
        VectorSchemaRoot root = gather(memory)) {
      if (root == null) return false;
      ColumnVector[] columns = root.getFieldVectors().stream().map(ArrowColumnVector::new)
          .toArray(ColumnVector[]::new);
      Iterator<InternalRow> all = new ColumnarBatch(columns, root.getRowCount()).rowIterator();
      while (all.hasNext()) {
        if (key.eval(all.next()) == null) return true;
      }
      return false;
    }
  }

  public long rows() {
    return rows;
  }

  /** For a null-aware anti join's build side: whether any row's key is null (Spark's HashedRelationWithAllNullKeys). */
  public boolean anyNullKey() {
    return anyNullKey;
  }

  /** All rows in one host Arrow batch allocated from {@code allocator}, which the caller owns; null when none. */
  VectorSchemaRoot gather(BufferAllocator allocator) {
    try (SliceAppender appender = new SliceAppender(
        ArrowUtils$.MODULE$.toArrowSchema(schema, timeZone, true, false), allocator)) {
      for (byte[] slice : slices) appender.append(slice);
      return appender.take();
    }
  }
}
