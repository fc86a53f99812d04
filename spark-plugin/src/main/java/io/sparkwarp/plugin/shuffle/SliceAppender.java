package io.sparkwarp.plugin.shuffle;

import static io.sparkwarp.plugin.shuffle.ColumnarSlices.BITS;
import static io.sparkwarp.plugin.shuffle.ColumnarSlices.COLUMN_HEADER_BYTES;
import static io.sparkwarp.plugin.shuffle.ColumnarSlices.HEADER_BYTES;
import static io.sparkwarp.plugin.shuffle.ColumnarSlices.VARIABLE;
import static io.sparkwarp.plugin.shuffle.ColumnarSlices.bitBytes;
import static io.sparkwarp.plugin.shuffle.ColumnarSlices.corrupt;
import static io.sparkwarp.plugin.shuffle.ColumnarSlices.valuesBytes;

import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.spark.unsafe.Platform;

/**
 * Appends serialized slices (see {@link ColumnarSlices} for the format) into Arrow vectors allocated from the given
 * allocator, for one batch. Each slice's buffers go in with bulk copies; only bitmaps at a row that is not a multiple
 * of 8 are shifted, a word at a time, and offsets are re-based in one pass. A slice is validated in full before
 * anything is copied (its offsets while they are), so a truncated or garbled one throws IllegalStateException and
 * adds no rows.
 */
public final class SliceAppender implements AutoCloseable {
  private final Schema schema;
  private final BufferAllocator allocator;
  private final byte[] kinds;
  // where the slice being appended has each column's parts, as unsafe offsets into it
  private final boolean[] nulls;
  private final long[] validityAt;
  private final long[] valuesAt;
  private final int[] dataBytes;
  private VectorSchemaRoot root;
  private int rows;

  public SliceAppender(Schema schema, BufferAllocator allocator) {
    this.schema = schema;
    this.allocator = allocator;
    List<Field> fields = schema.getFields();
    kinds = new byte[fields.size()];
    for (int c = 0; c < kinds.length; c++) {
      try (FieldVector v = fields.get(c).createVector(allocator)) {  // no memory until allocated
        kinds[c] = ColumnarSlices.kind(v);
      }
    }
    nulls = new boolean[kinds.length];
    validityAt = new long[kinds.length];
    valuesAt = new long[kinds.length];
    dataBytes = new int[kinds.length];
  }

  /** Appends a slice's rows; IllegalStateException when it is not a whole slice of this schema's columns. */
  public void append(byte[] slice) {
    int n = parse(slice);
    if (n == 0) return;
    if ((long) rows + n > Integer.MAX_VALUE) {
      throw new IllegalStateException("a batch of " + rows + " rows cannot take " + n + " more");
    }
    if (root == null) root = VectorSchemaRoot.create(schema, allocator);
    List<FieldVector> vectors = root.getFieldVectors();
    for (int c = 0; c < kinds.length; c++) appendColumn(vectors.get(c), c, slice, n);
    rows += n;
  }

  public int rows() {
    return rows;
  }

  /**
   * Bytes of the values gathered so far (validity, values, offsets, data): what one upload moves. The vectors'
   * capacity is up to twice that.
   */
  public long bytes() {
    if (rows == 0) return 0;
    long bytes = 0;
    List<FieldVector> vectors = root.getFieldVectors();
    for (int c = 0; c < kinds.length; c++) {
      bytes += bitBytes(rows) + valuesBytes(kinds[c], rows);
      if (kinds[c] == VARIABLE) {
        bytes += Platform.getInt(null, ((BaseVariableWidthVector) vectors.get(c)).getOffsetBufferAddress() + 4L * rows);
      }
    }
    return bytes;
  }

  /** The gathered vectors, value counts set, for the caller to own; null if no rows. The appender starts over. */
  public VectorSchemaRoot take() {
    if (rows == 0) return null;
    for (FieldVector v : root.getFieldVectors()) {
      // else setValueCount would "fill the holes" of values never set through the vector, emptying them all
      if (v instanceof BaseVariableWidthVector var) var.setLastSet(rows - 1);
    }
    root.setRowCount(rows);
    VectorSchemaRoot taken = root;
    root = null;
    rows = 0;
    return taken;
  }

  /** Frees anything not taken. */
  @Override
  public void close() {
    if (root != null) root.close();
    root = null;
    rows = 0;
  }

  /** Validates a slice's header and every length in it against its size; returns its rows. */
  private int parse(byte[] slice) {
    ColumnarSlices.checkHeader(slice);
    long base = Platform.BYTE_ARRAY_OFFSET;
    int n = Platform.getInt(slice, base + 4);
    int columns = Platform.getInt(slice, base + 8);
    if (columns != kinds.length) throw corrupt(columns + " columns where the schema has " + kinds.length);
    long bitBytes = bitBytes(n);
    long pos = HEADER_BYTES;
    for (int c = 0; c < kinds.length; c++) {
      pos = need(slice, pos, COLUMN_HEADER_BYTES, c, "header");
      byte kind = slice[(int) pos - 2];
      byte flag = slice[(int) pos - 1];
      if (kind != kinds[c]) throw corrupt("column " + c + " is of kind " + kind + ", the schema's of " + kinds[c]);
      if (flag != 0 && flag != 1) throw corrupt("column " + c + " has null flag " + flag);
      nulls[c] = flag == 1;
      if (nulls[c]) {
        validityAt[c] = base + pos;
        pos = need(slice, pos, bitBytes, c, "validity");
      }
      valuesAt[c] = base + pos;
      pos = need(slice, pos, valuesBytes(kind, n), c, "values");
      if (kind == VARIABLE) {
        int first = Platform.getInt(slice, valuesAt[c]);
        int last = Platform.getInt(slice, valuesAt[c] + 4L * n);
        if (first != 0 || last < 0) throw corrupt("column " + c + " has offsets from " + first + " to " + last);
        dataBytes[c] = last;
        pos = need(slice, pos, last, c, "data");
      }
    }
    if (pos != slice.length) throw corrupt((slice.length - pos) + " bytes follow the last column");
    return n;
  }

  /** The position after {@code bytes} more at {@code pos}; IllegalStateException when the slice ends before. */
  private static long need(byte[] slice, long pos, long bytes, int column, String part) {
    if (bytes > slice.length - pos) {
      throw corrupt("column " + column + "'s " + part + " needs " + bytes + " bytes at " + pos + " of "
          + slice.length);
    }
    return pos + bytes;
  }

  private void appendColumn(FieldVector v, int c, byte[] slice, int n) {
    int at = rows;
    while (v.getValueCapacity() < at + n) {  // each doubles
      if (v instanceof BaseVariableWidthVector var) var.reallocValidityAndOffsetBuffers();
      else v.reAlloc();
    }
    if (nulls[c]) copyBits(slice, validityAt[c], n, v.getValidityBufferAddress(), at);
    else setBits(v.getValidityBufferAddress(), at, n);
    switch (kinds[c]) {
      case BITS -> copyBits(slice, valuesAt[c], n, v.getDataBufferAddress(), at);
      case VARIABLE -> appendVariable((BaseVariableWidthVector) v, c, slice, n, at);
      default -> Platform.copyMemory(slice, valuesAt[c], null, v.getDataBufferAddress() + (long) kinds[c] * at,
          (long) kinds[c] * n);
    }
  }

  /** Offsets re-based by the data already held (and checked to never decrease), then the data in one copy. */
  private void appendVariable(BaseVariableWidthVector v, int c, byte[] slice, int n, int at) {
    long offsets = v.getOffsetBufferAddress();
    int base = Platform.getInt(null, offsets + 4L * at);
    long end = (long) base + dataBytes[c];
    if (end > Integer.MAX_VALUE) {
      throw new IllegalStateException("column " + v.getName() + " would hold " + end
          + " bytes, more than Arrow's int offsets reach");
    }
    long capacity = v.getDataBuffer().capacity();
    if (capacity < end) v.reallocDataBuffer(Math.max(end, 2 * capacity));
    long src = valuesAt[c];
    int previous = 0;
    for (int k = 1; k <= n; k++) {
      int offset = Platform.getInt(slice, src + 4L * k);
      if (offset < previous) throw corrupt("column " + c + "'s offset " + k + " is below the one before");
      Platform.putInt(null, offsets + 4L * (at + k), base + offset);
      previous = offset;
    }
    Platform.copyMemory(slice, src + 4L * (n + 1), null, v.getDataBufferAddress() + base, dataBytes[c]);
  }

  private static int lowBits(int n) {
    return (1 << n) - 1;
  }

  /** Sets bits [at, at + n) of a bitmap, keeping the bits below and clearing the rest of the last byte. */
  private static void setBits(long bitmap, int at, int n) {
    long first = bitmap + (at >>> 3);
    int shift = at & 7;
    int end = shift + n;  // counted from bit 0 of the first byte
    int kept = Platform.getByte(null, first) & lowBits(shift);
    if (end <= 8) {
      Platform.putByte(null, first, (byte) (kept | (lowBits(end) & ~lowBits(shift))));
      return;
    }
    Platform.putByte(null, first, (byte) (kept | (0xFF << shift)));
    int whole = (end >>> 3) - 1;
    Platform.setMemory(first + 1, (byte) -1, whole);
    if ((end & 7) != 0) Platform.putByte(null, first + 1 + whole, (byte) lowBits(end & 7));
  }

  /**
   * Copies n bits packed from bit 0 at {@code from} in the slice to bits [at, at + n) of a bitmap, keeping the bits
   * below and clearing the rest of the last byte: one copy when at is a multiple of 8, else shifted a word at a time.
   */
  private static void copyBits(byte[] slice, long from, int n, long bitmap, int at) {
    long first = bitmap + (at >>> 3);
    int shift = at & 7;
    int bytes = (n + 7) >>> 3;
    if (shift == 0) {
      Platform.copyMemory(slice, from, null, first, bytes);
    } else {
      long carry = Platform.getByte(null, first) & lowBits(shift);
      int i = 0;
      for (; i + 8 <= bytes; i += 8) {
        long word = Platform.getLong(slice, from + i);
        Platform.putLong(null, first + i, carry | (word << shift));
        carry = word >>> (64 - shift);
      }
      for (; i < bytes; i++) {
        int b = Platform.getByte(slice, from + i) & 0xFF;
        Platform.putByte(null, first + i, (byte) (carry | (b << shift)));
        carry = b >>> (8 - shift);
      }
      if (shift + n > 8L * bytes) Platform.putByte(null, first + bytes, (byte) carry);
    }
    int end = shift + n;
    if ((end & 7) != 0) {
      long last = first + (end >>> 3);
      Platform.putByte(null, last, (byte) (Platform.getByte(null, last) & lowBits(end & 7)));
    }
  }
}
