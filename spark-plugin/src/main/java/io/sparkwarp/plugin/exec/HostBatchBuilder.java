package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.plugin.types.SparkTypes;
import java.util.List;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.BitVectorHelper;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.arrow.ArrowWriter$;
import org.apache.spark.sql.execution.arrow.ArrowWriter;
import org.apache.spark.sql.execution.vectorized.WritableColumnVector;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.ArrowUtils$;
import org.apache.spark.sql.vectorized.ArrowColumnVector;
import org.apache.spark.sql.vectorized.ColumnVector;
import org.apache.spark.sql.vectorized.ColumnarBatch;
import org.apache.spark.unsafe.Platform;

/**
 * Gathers host input into Arrow vectors in the task's transfer (pinned) memory, ready for one upload per device
 * batch: rows through Spark's own ArrowWriter, CPU column batches (the vectorized Parquet and ORC readers) column by
 * column without forming rows. The caller takes the root with {@link #take()} and closes it after the upload.
 */
final class HostBatchBuilder implements AutoCloseable {
  private static final int ROWS_PER_SIZE_CHECK = 4096;

  private final StructType schema;
  private final String timeZone;
  private final BufferAllocator allocator;
  private VectorSchemaRoot root;
  private ArrowWriter rowWriter;
  private int rows;

  HostBatchBuilder(StructType schema, String timeZone, BufferAllocator allocator) {
    this.schema = schema;
    this.timeZone = timeZone;
    this.allocator = allocator;
  }

  private VectorSchemaRoot root() {
    if (root == null) {
      root = VectorSchemaRoot.create(ArrowUtils$.MODULE$.toArrowSchema(schema, timeZone, true, false), allocator);
      root.allocateNew();
      rows = 0;
    }
    return root;
  }

  int rows() {
    return rows;
  }

  /**
   * Bytes gathered so far: the buffers' capacity, an upper bound (value counts are set only at the end). Not through
   * getFieldBuffers(), which fills a string vector's "holes" up to its value count and so forgets its last value.
   */
  long bytes() {
    if (root == null) return 0;
    long bytes = 0;
    for (FieldVector v : root.getFieldVectors()) {
      bytes += v.getValidityBuffer().capacity() + v.getDataBuffer().capacity();
      if (v instanceof BaseVariableWidthVector var) bytes += var.getOffsetBuffer().capacity();
    }
    return bytes;
  }

  /** Appends rows until {@code maxRows} or {@code maxBytes} is reached or the input ends. */
  void appendRows(java.util.Iterator<InternalRow> input, int maxRows, long maxBytes) {
    VectorSchemaRoot r = root();
    if (rowWriter == null) rowWriter = ArrowWriter$.MODULE$.create(r);
    while (rows < maxRows && input.hasNext()) {
      rowWriter.write(input.next());
      rows++;
      if (rows % ROWS_PER_SIZE_CHECK == 0 && bytes() >= maxBytes) break;
    }
  }

  /** Appends every row of a CPU column batch. */
  void appendColumns(ColumnarBatch batch) {
    VectorSchemaRoot r = root();
    int n = batch.numRows();
    List<FieldVector> vectors = r.getFieldVectors();
    for (int c = 0; c < vectors.size(); c++) {
      DeviceType type = SparkTypes.deviceType(schema.fields()[c].dataType(), timeZone).orElseThrow();
      appendColumn(batch.column(c), vectors.get(c), type, rows, n);
    }
    rows += n;
  }

  /**
   * Appends rows [0, n) of {@code in} at row {@code at} of {@code out}. Fixed-width values move with one bulk copy
   * per column: from Spark's writable vectors (its readers keep them in primitive arrays or off-heap memory; decimals
   * as unscaled ints or longs) and from Arrow vectors of the same layout. Anything else goes value by value: the
   * bulk getters of other vectors may throw on null slots (ArrowColumnVector's do) or read them in other ways.
   */
  private static void appendColumn(ColumnVector in, FieldVector out, DeviceType type, int at, int n) {
    while (out.getValueCapacity() < at + n) out.reAlloc();
    appendValidity(in, out.getValidityBuffer(), at, n);
    boolean bulk = !type.isVariableWidth() && type.kind() != DeviceType.Kind.BOOLEAN;
    if (bulk && in instanceof WritableColumnVector && type.kind() != DeviceType.Kind.DECIMAL128) {
      appendWritable(in, out.getDataBufferAddress(), type, at, n);  // (wide decimals it holds as bytes)
    } else if (bulk && in instanceof ArrowColumnVector a && a.getValueVector() instanceof BaseFixedWidthVector src
        && src.getMinorType() == out.getMinorType()) {
      int width = src.getTypeWidth();  // Arrow's: 16 bytes for decimals
      MemoryUtil.copyMemory(src.getDataBufferAddress(), out.getDataBufferAddress() + (long) width * at,
          (long) width * n);
    } else if (in instanceof ArrowColumnVector a && a.getValueVector() instanceof BaseVariableWidthVector src
        && out instanceof BaseVariableWidthVector dst && src.getMinorType() == out.getMinorType()) {
      appendVariableWidth(src, dst, at, n);
    } else {
      appendValues(in, out, type, at, n);
    }
  }

  /**
   * Strings or binaries of an Arrow vector of the same kind (the columnar shuffle's batches): the data bytes in one
   * copy, the offsets shifted by where they land.
   */
  private static void appendVariableWidth(BaseVariableWidthVector in, BaseVariableWidthVector out, int at, int n) {
    out.fillEmpties(at);  // offsets up to row at, past trailing nulls of earlier appends
    long inStart = in.getStartOffset(0);
    long bytes = in.getStartOffset(n) - inStart;
    long outStart = out.getStartOffset(at);
    while (out.getDataBuffer().capacity() < outStart + bytes) out.reallocDataBuffer();
    MemoryUtil.copyMemory(in.getDataBufferAddress() + inStart, out.getDataBufferAddress() + outStart, bytes);
    ArrowBuf offsets = out.getOffsetBuffer();
    ArrowBuf inOffsets = in.getOffsetBuffer();
    long shift = outStart - inStart;
    for (int i = 1; i <= n; i++) {
      offsets.setInt(4L * (at + i), (int) (inOffsets.getInt(4L * i) + shift));
    }
    out.setLastSet(at + n - 1);
  }

  /** Fixed-width values of a Spark writable vector, whose bulk getters read null slots as whatever they hold. */
  private static void appendWritable(ColumnVector in, long values, DeviceType type, int at, int n) {
    switch (type.kind()) {
      case BYTE -> Platform.copyMemory(in.getBytes(0, n), Platform.BYTE_ARRAY_OFFSET, null, values + at, n);
      case SHORT -> Platform.copyMemory(in.getShorts(0, n), Platform.SHORT_ARRAY_OFFSET, null, values + 2L * at,
          2L * n);
      case INT, DATE -> Platform.copyMemory(in.getInts(0, n), Platform.INT_ARRAY_OFFSET, null, values + 4L * at,
          4L * n);
      case LONG, TIMESTAMP -> Platform.copyMemory(in.getLongs(0, n), Platform.LONG_ARRAY_OFFSET, null,
          values + 8L * at, 8L * n);
      case FLOAT -> Platform.copyMemory(in.getFloats(0, n), Platform.FLOAT_ARRAY_OFFSET, null, values + 4L * at,
          4L * n);
      case DOUBLE -> Platform.copyMemory(in.getDoubles(0, n), Platform.DOUBLE_ARRAY_OFFSET, null, values + 8L * at,
          8L * n);
      case DECIMAL -> appendUnscaled(in, type, values + 16L * at, n);
      default -> throw new IllegalStateException(type + " is not a fixed-width kind");
    }
  }

  /**
   * Decimals from Spark's writable vectors, which hold precision <= 9 as unscaled ints and <= 18 as unscaled longs,
   * widened to Arrow's 16-byte two's complement without a Decimal object per value.
   */
  private static void appendUnscaled(ColumnVector in, DeviceType type, long address, int n) {
    if (DecimalType.is32BitDecimalType(DataTypes.createDecimalType(type.precision(), type.scale()))) {
      int[] unscaled = in.getInts(0, n);
      for (int i = 0; i < n; i++) putDecimal(address + 16L * i, unscaled[i]);
    } else {
      long[] unscaled = in.getLongs(0, n);
      for (int i = 0; i < n; i++) putDecimal(address + 16L * i, unscaled[i]);
    }
  }

  private static void putDecimal(long address, long unscaled) {
    MemoryUtil.putLong(address, unscaled);
    MemoryUtil.putLong(address + 8, unscaled >> 63);
  }

  /** Validity bits [at, at + n): whole bytes at once when the batch has no nulls. */
  private static void appendValidity(ColumnVector in, ArrowBuf validity, int at, int n) {
    if (in.hasNull()) {
      for (int i = 0; i < n; i++) BitVectorHelper.setValidityBit(validity, at + i, in.isNullAt(i) ? 0 : 1);
      return;
    }
    int i = 0;
    while (i < n && (at + i) % 8 != 0) BitVectorHelper.setBit(validity, at + i++);
    int wholeBytes = (n - i) / 8;
    if (wholeBytes > 0) validity.setOne((at + i) / 8, wholeBytes);
    i += 8 * wholeBytes;
    while (i < n) BitVectorHelper.setBit(validity, at + i++);
  }

  /** Value by value through the ColumnVector getters; null rows are skipped (their validity bit is clear). */
  private static void appendValues(ColumnVector in, FieldVector out, DeviceType type, int at, int n) {
    long values = type.isVariableWidth() ? 0 : out.getDataBufferAddress();
    for (int i = 0; i < n; i++) {
      if (in.isNullAt(i)) continue;  // variable-width setSafe fills the skipped offsets
      int o = at + i;
      switch (type.kind()) {
        case BOOLEAN -> ((BitVector) out).setSafe(o, in.getBoolean(i) ? 1 : 0);
        case BYTE -> MemoryUtil.putByte(values + o, in.getByte(i));
        case SHORT -> MemoryUtil.putShort(values + 2L * o, in.getShort(i));
        case INT, DATE -> MemoryUtil.putInt(values + 4L * o, in.getInt(i));
        case LONG, TIMESTAMP -> MemoryUtil.putLong(values + 8L * o, in.getLong(i));
        case FLOAT -> MemoryUtil.putInt(values + 4L * o, Float.floatToRawIntBits(in.getFloat(i)));
        case DOUBLE -> MemoryUtil.putLong(values + 8L * o, Double.doubleToRawLongBits(in.getDouble(i)));
        case DECIMAL -> putDecimal(values + 16L * o, in.getDecimal(i, type.precision(), type.scale())
            .toUnscaledLong());
        case DECIMAL128 -> ((DecimalVector) out).setSafe(o,
            in.getDecimal(i, type.precision(), type.scale()).toJavaBigDecimal());
        case STRING -> ((VarCharVector) out).setSafe(o, in.getUTF8String(i).getBytes());
        case BINARY -> ((VarBinaryVector) out).setSafe(o, in.getBinary(i));
      }
    }
  }

  /** The gathered vectors with their value counts set; the caller owns them. Null when nothing was gathered. */
  VectorSchemaRoot take() {
    if (root == null || rows == 0) return null;
    if (rowWriter != null) {
      rowWriter.finish();
    } else {
      root.setRowCount(rows);  // also fills the offsets of trailing null strings
    }
    VectorSchemaRoot result = root;
    root = null;
    rowWriter = null;
    return result;
  }

  @Override
  public void close() {
    if (root != null) root.close();
    root = null;
  }
}
