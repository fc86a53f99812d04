package io.sparkwarp.plugin.shuffle;

import java.util.Arrays;
import java.util.List;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.unsafe.Platform;

/**
 * Splits a host Arrow batch into one serialized slice per partition: the rows of one partition, column by column, in
 * one byte[] that Spark's shuffle carries as a record value and {@link SliceAppender} appends into Arrow vectors
 * again. Both sides run the same jar, so the format is internal; the reader still validates every length.
 *
 * <p>The format, in native byte order (little-endian wherever Arrow Java runs), with no padding and no compression
 * (Spark compresses the shuffle stream):
 * <pre>
 *   int  FORMAT      0x53575301: "SWS" and version 1
 *   int  rows
 *   int  columns
 *   per column:
 *     byte  kind     BITS (0), a fixed width in bytes (1, 2, 4, 8 or 16), or VARIABLE (-1)
 *     byte  nulls    1 when a row of this slice is null in the column, else 0
 *     validity       only when nulls is 1: ceil(rows / 8) bytes, row i at bit i % 8 of byte i / 8
 *     values         BITS: ceil(rows / 8) bytes, as validity; fixed width: rows * width bytes;
 *                    VARIABLE: rows + 1 int offsets, from 0 and non-decreasing, then offsets[rows] bytes of data
 * </pre>
 * Bits past the last row of a bitmap's last byte are unspecified. Null rows carry whatever values the vector holds.
 *
 * <p>Each slice is sized exactly before it is allocated. Values move through {@link Platform} between Arrow's memory
 * and the byte[]s: where one partition takes every row, each buffer in one copy; else each input buffer is read once,
 * in row order, and each row's value written at its partition's position with one access of the value's width.
 */
public final class ColumnarSlices {
  static final int FORMAT = 0x53575301;
  static final int HEADER_BYTES = 12;
  static final int COLUMN_HEADER_BYTES = 2;
  static final byte BITS = 0;
  static final byte VARIABLE = -1;
  /** The largest byte[] every JVM allocates. */
  private static final long MAX_SLICE_BYTES = Integer.MAX_VALUE - 8;

  private ColumnarSlices() {}

  /**
   * Returns, for each partition p in [0, numPartitions), the serialized slice of the rows whose id is p, in their
   * input order, or null where no row has id p. columns: Arrow vectors of equal value count >= rows.
   */
  public static byte[][] split(List<FieldVector> columns, int rows, int[] partitionIds, int numPartitions) {
    if (numPartitions < 1) throw new IllegalArgumentException("numPartitions " + numPartitions + " is below 1");
    if (partitionIds.length < rows) {
      throw new IllegalArgumentException(partitionIds.length + " partition ids for " + rows + " rows");
    }
    byte[] kinds = kinds(columns, rows);
    int[] counts = new int[numPartitions];
    for (int r = 0; r < rows; r++) {
      int p = partitionIds[r];
      if (p < 0 || p >= numPartitions) {
        throw new IllegalArgumentException("row " + r + " has partition id " + p + ", outside [0, " + numPartitions
            + ")");
      }
      counts[p]++;
    }
    byte[][] slices = new byte[numPartitions][];
    if (rows == 0) return slices;
    if (counts[partitionIds[0]] == rows) {  // one partition takes every row: whole buffers at once
      slices[partitionIds[0]] = whole(columns, rows);
      return slices;
    }

    // each slice's exact size first, so that each byte[] is allocated once
    long[] sizes = new long[numPartitions];
    for (int p = 0; p < numPartitions; p++) {
      if (counts[p] > 0) sizes[p] = HEADER_BYTES + (long) COLUMN_HEADER_BYTES * kinds.length;
    }
    boolean[][] nulls = new boolean[kinds.length][];
    for (int c = 0; c < kinds.length; c++) {
      FieldVector v = columns.get(c);
      nulls[c] = nullPartitions(v.getValidityBufferAddress(), rows, partitionIds, numPartitions);
      for (int p = 0; p < numPartitions; p++) {
        if (counts[p] == 0) continue;
        sizes[p] += valuesBytes(kinds[c], counts[p]);
        if (nulls[c] != null && nulls[c][p]) sizes[p] += bitBytes(counts[p]);
      }
      if (kinds[c] == VARIABLE) addValueLengths(offsetsAddress(v), rows, partitionIds, sizes);
    }

    Scatter scatter = new Scatter(slices, rows, partitionIds, counts);
    for (int p = 0; p < numPartitions; p++) {
      if (counts[p] == 0) continue;
      slices[p] = new byte[checkedSize(sizes[p])];
      scatter.at[p] = putHeader(slices[p], counts[p], kinds.length);
    }
    for (int c = 0; c < kinds.length; c++) {
      FieldVector v = columns.get(c);
      scatter.columnHeaders(kinds[c], nulls[c]);
      if (nulls[c] != null) scatter.bits(v.getValidityBufferAddress(), nulls[c]);
      switch (kinds[c]) {
        case BITS -> scatter.bits(v.getDataBufferAddress(), null);
        case VARIABLE -> scatter.variable(offsetsAddress(v), v.getDataBufferAddress());
        default -> scatter.fixed(v.getDataBufferAddress(), kinds[c]);
      }
    }
    for (int p = 0; p < numPartitions; p++) {
      assert counts[p] == 0 || scatter.at[p] == Platform.BYTE_ARRAY_OFFSET + slices[p].length : "slice " + p
          + " mis-sized";
    }
    return slices;
  }

  /** The one slice of all rows [0, rows) (a single-partition exchange). */
  public static byte[] whole(List<FieldVector> columns, int rows) {
    byte[] kinds = kinds(columns, rows);
    boolean[] nulls = new boolean[kinds.length];
    long size = HEADER_BYTES;
    for (int c = 0; c < kinds.length; c++) {
      FieldVector v = columns.get(c);
      nulls[c] = hasNull(v.getValidityBufferAddress(), rows);
      size += COLUMN_HEADER_BYTES + valuesBytes(kinds[c], rows) + (nulls[c] ? bitBytes(rows) : 0);
      if (kinds[c] == VARIABLE && rows > 0) {
        long offsets = offsetsAddress(v);
        size += Platform.getInt(null, offsets + 4L * rows) - Platform.getInt(null, offsets);
      }
    }
    byte[] slice = new byte[checkedSize(size)];
    long at = putHeader(slice, rows, kinds.length);
    for (int c = 0; c < kinds.length; c++) {
      FieldVector v = columns.get(c);
      at = putColumnHeader(slice, at, kinds[c], nulls[c]);
      if (nulls[c]) at = copyIn(v.getValidityBufferAddress(), slice, at, bitBytes(rows));
      at = switch (kinds[c]) {
        case BITS -> copyIn(v.getDataBufferAddress(), slice, at, bitBytes(rows));
        case VARIABLE -> copyVariable(offsetsAddress(v), v.getDataBufferAddress(), rows, slice, at);
        default -> copyIn(v.getDataBufferAddress(), slice, at, (long) kinds[c] * rows);
      };
    }
    return slice;
  }

  /** Rows in a slice, read from its header without decoding it. */
  public static int rowCount(byte[] slice) {
    checkHeader(slice);
    return Platform.getInt(slice, Platform.BYTE_ARRAY_OFFSET + 4);
  }

  /** Checks a slice's format tag and row count; IllegalStateException when either is wrong. */
  static void checkHeader(byte[] slice) {
    if (slice.length < HEADER_BYTES) throw corrupt("its " + slice.length + " bytes are fewer than a header's");
    int format = Platform.getInt(slice, Platform.BYTE_ARRAY_OFFSET);
    if (format != FORMAT) {
      throw corrupt("format tag " + Integer.toHexString(format) + " is not " + Integer.toHexString(FORMAT));
    }
    int rows = Platform.getInt(slice, Platform.BYTE_ARRAY_OFFSET + 4);
    if (rows < 0) throw corrupt("negative row count " + rows);
  }

  static IllegalStateException corrupt(String why) {
    return new IllegalStateException("corrupt columnar shuffle slice: " + why);
  }

  /** The slice kind of a vector's Arrow layout; IllegalArgumentException for a layout slices do not carry. */
  static byte kind(FieldVector v) {
    if (v instanceof BitVector) return BITS;
    if (v instanceof BaseFixedWidthVector f) {
      int width = f.getTypeWidth();
      if (width == 1 || width == 2 || width == 4 || width == 8 || width == 16) return (byte) width;
    } else if (v instanceof BaseVariableWidthVector) {
      return VARIABLE;
    }
    throw new IllegalArgumentException("column " + v.getName() + " of Arrow type " + v.getField().getType() + " ("
        + v.getClass().getSimpleName() + ") cannot go into a columnar shuffle slice");
  }

  static long bitBytes(int rows) {
    return (rows + 7L) >>> 3;
  }

  /** Bytes of a column's values (data bytes of a variable-width column aside). */
  static long valuesBytes(byte kind, int rows) {
    return switch (kind) {
      case BITS -> bitBytes(rows);
      case VARIABLE -> 4L * (rows + 1);
      default -> (long) kind * rows;
    };
  }

  private static byte[] kinds(List<FieldVector> columns, int rows) {
    if (rows < 0) throw new IllegalArgumentException("negative row count " + rows);
    byte[] kinds = new byte[columns.size()];
    for (int c = 0; c < kinds.length; c++) {
      FieldVector v = columns.get(c);
      if (v.getValueCount() < rows) {
        throw new IllegalArgumentException("column " + c + " holds " + v.getValueCount() + " values, fewer than "
            + rows + " rows");
      }
      kinds[c] = kind(v);
    }
    return kinds;
  }

  private static long offsetsAddress(FieldVector v) {
    return ((BaseVariableWidthVector) v).getOffsetBufferAddress();
  }

  private static int checkedSize(long size) {
    if (size > MAX_SLICE_BYTES) {
      throw new IllegalStateException("a columnar shuffle slice of " + size + " bytes is larger than a byte[] can be");
    }
    return (int) size;
  }

  private static long putHeader(byte[] slice, int rows, int columns) {
    long at = Platform.BYTE_ARRAY_OFFSET;
    Platform.putInt(slice, at, FORMAT);
    Platform.putInt(slice, at + 4, rows);
    Platform.putInt(slice, at + 8, columns);
    return at + HEADER_BYTES;
  }

  private static long putColumnHeader(byte[] slice, long at, byte kind, boolean nulls) {
    Platform.putByte(slice, at, kind);
    Platform.putByte(slice, at + 1, (byte) (nulls ? 1 : 0));
    return at + COLUMN_HEADER_BYTES;
  }

  /** Up to 64 bits of a bitmap from bit {@code from} (a multiple of 8), reading no byte past bit from + n. */
  private static long word(long bitmap, int from, int n) {
    long address = bitmap + (from >>> 3);
    if (n == 64) return Platform.getLong(null, address);
    long word = 0;
    for (int b = 0; b < (n + 7) >>> 3; b++) word |= (Platform.getByte(null, address + b) & 0xFFL) << (8 * b);
    return word;
  }

  private static long lowBits(int n) {
    return n == 64 ? -1L : (1L << n) - 1;
  }

  private static boolean hasNull(long validity, int rows) {
    for (int from = 0; from < rows; from += 64) {
      int n = Math.min(64, rows - from);
      if ((~word(validity, from, n) & lowBits(n)) != 0) return true;
    }
    return false;
  }

  /** Per partition, whether one of its rows is null; null when no row is. Visits only the null rows. */
  private static boolean[] nullPartitions(long validity, int rows, int[] partitionIds, int numPartitions) {
    boolean[] nulls = null;
    for (int from = 0; from < rows; from += 64) {
      int n = Math.min(64, rows - from);
      for (long missing = ~word(validity, from, n) & lowBits(n); missing != 0; missing &= missing - 1) {
        if (nulls == null) nulls = new boolean[numPartitions];
        nulls[partitionIds[from + Long.numberOfTrailingZeros(missing)]] = true;
      }
    }
    return nulls;
  }

  /** Adds each row's value length to its partition's size. */
  private static void addValueLengths(long offsets, int rows, int[] partitionIds, long[] sizes) {
    int start = Platform.getInt(null, offsets);
    for (int r = 0; r < rows; r++) {
      int end = Platform.getInt(null, offsets + 4L * (r + 1));
      sizes[partitionIds[r]] += end - start;
      start = end;
    }
  }

  private static long copyIn(long address, byte[] slice, long at, long bytes) {
    Platform.copyMemory(null, address, slice, at, bytes);
    return at + bytes;
  }

  /** Offsets (re-based to 0 where the vector's do not start there) and data of rows [0, rows). */
  private static long copyVariable(long offsets, long data, int rows, byte[] slice, long at) {
    if (rows == 0) {  // an empty vector may have no offset buffer at all
      Platform.putInt(slice, at, 0);
      return at + 4;
    }
    int start = Platform.getInt(null, offsets);
    if (start == 0) {
      copyIn(offsets, slice, at, 4L * (rows + 1));
    } else {
      for (int i = 0; i <= rows; i++) {
        Platform.putInt(slice, at + 4L * i, Platform.getInt(null, offsets + 4L * i) - start);
      }
    }
    at += 4L * (rows + 1);
    return copyIn(data + start, slice, at, Platform.getInt(null, offsets + 4L * rows) - start);
  }

  /**
   * Writes each row's values at its partition's position in that partition's slice, column by column, reading each
   * input buffer once in row order (sequential reads; one write stream per partition).
   */
  private static final class Scatter {
    private final byte[][] slices;
    private final int rows;
    private final int[] partitionIds;
    private final int[] counts;
    /** Each slice's write position, as an unsafe offset. */
    private final long[] at;
    /** Per partition: bits not yet written, rows seen in this pass, where variable-width data goes and its length. */
    private final long[] bits;
    private final int[] seen;
    private final long[] dataAt;
    private final int[] dataBytes;

    Scatter(byte[][] slices, int rows, int[] partitionIds, int[] counts) {
      this.slices = slices;
      this.rows = rows;
      this.partitionIds = partitionIds;
      this.counts = counts;
      at = new long[counts.length];
      bits = new long[counts.length];
      seen = new int[counts.length];
      dataAt = new long[counts.length];
      dataBytes = new int[counts.length];
    }

    void columnHeaders(byte kind, boolean[] nulls) {
      for (int p = 0; p < counts.length; p++) {
        if (counts[p] > 0) at[p] = putColumnHeader(slices[p], at[p], kind, nulls != null && nulls[p]);
      }
    }

    /** A bitmap's bits, packed from bit 0 of each slice, for the partitions in {@code only} (all where null). */
    void bits(long bitmap, boolean[] only) {
      Arrays.fill(seen, 0);
      long word = 0;
      for (int r = 0; r < rows; r++) {
        if ((r & 63) == 0) word = word(bitmap, r, Math.min(64, rows - r));
        int p = partitionIds[r];
        if (only != null && !only[p]) continue;
        int k = seen[p]++;
        bits[p] |= ((word >>> (r & 63)) & 1) << (k & 63);
        if ((k & 63) == 63) {
          Platform.putLong(slices[p], at[p], bits[p]);
          at[p] += 8;
          bits[p] = 0;
        }
      }
      for (int p = 0; p < counts.length; p++) {
        for (int b = 0; b < ((seen[p] & 63) + 7) >>> 3; b++) {
          Platform.putByte(slices[p], at[p]++, (byte) (bits[p] >>> (8 * b)));
        }
        bits[p] = 0;
      }
    }

    /** Fixed-width values, one access of the value's width per row. */
    void fixed(long values, byte width) {
      switch (width) {
        case 1 -> {
          for (int r = 0; r < rows; r++) {
            int p = partitionIds[r];
            Platform.putByte(slices[p], at[p]++, Platform.getByte(null, values + r));
          }
        }
        case 2 -> {
          for (int r = 0; r < rows; r++) {
            int p = partitionIds[r];
            Platform.putShort(slices[p], at[p], Platform.getShort(null, values + 2L * r));
            at[p] += 2;
          }
        }
        case 4 -> {
          for (int r = 0; r < rows; r++) {
            int p = partitionIds[r];
            Platform.putInt(slices[p], at[p], Platform.getInt(null, values + 4L * r));
            at[p] += 4;
          }
        }
        case 8 -> {
          for (int r = 0; r < rows; r++) {
            int p = partitionIds[r];
            Platform.putLong(slices[p], at[p], Platform.getLong(null, values + 8L * r));
            at[p] += 8;
          }
        }
        default -> {  // 16, the one other width kind() admits
          for (int r = 0; r < rows; r++) {
            int p = partitionIds[r];
            long address = values + 16L * r;
            Platform.putLong(slices[p], at[p], Platform.getLong(null, address));
            Platform.putLong(slices[p], at[p] + 8, Platform.getLong(null, address + 8));
            at[p] += 16;
          }
        }
      }
    }

    /** Offsets from 0 (after their first, 0) and data; each slice's data follows its offsets. */
    void variable(long offsets, long data) {
      for (int p = 0; p < counts.length; p++) {
        if (counts[p] == 0) continue;
        Platform.putInt(slices[p], at[p], 0);
        at[p] += 4;
        dataAt[p] = at[p] + 4L * counts[p];
        dataBytes[p] = 0;
      }
      int start = Platform.getInt(null, offsets);
      for (int r = 0; r < rows; r++) {
        int p = partitionIds[r];
        int end = Platform.getInt(null, offsets + 4L * (r + 1));
        int length = end - start;
        Platform.copyMemory(null, data + start, slices[p], dataAt[p] + dataBytes[p], length);
        dataBytes[p] += length;
        Platform.putInt(slices[p], at[p], dataBytes[p]);
        at[p] += 4;
        start = end;
      }
      for (int p = 0; p < counts.length; p++) {
        if (counts[p] > 0) at[p] = dataAt[p] + dataBytes[p];
      }
    }
  }
}
