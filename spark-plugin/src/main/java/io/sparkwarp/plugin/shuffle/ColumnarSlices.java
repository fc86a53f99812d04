package io.sparkwarp.plugin.shuffle;

import java.util.List;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.spark.unsafe.Platform;

/**
 * Cuts a host Arrow batch into serialized slices: a run of rows (one partition's, after the device grouped the rows
 * by partition), column by column, in one byte[] that Spark's shuffle carries as a record value and {@link
 * SliceAppender} appends into Arrow vectors again. Both sides run the same jar, so the format is internal; the reader still validates every length.
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
 * and the byte[]s in one copy per buffer; bitmaps that start inside a byte are shifted 64 bits at a time.
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

  /** The one slice of all rows [0, rows) (a single-partition exchange). */
  public static byte[] whole(List<FieldVector> columns, int rows) {
    return range(columns, 0, rows);
  }

  /** The slice of rows [from, to). columns: Arrow vectors of equal value count >= to. */
  public static byte[] range(List<FieldVector> columns, int from, int to) {
    if (from < 0 || to < from) throw new IllegalArgumentException("rows [" + from + ", " + to + ") are no range");
    return range(columns, kinds(columns, to), from, to);
  }

  /**
   * The slices of the runs [starts[p], starts[p + 1]) (a batch the device grouped by partition), null for an empty
   * run; the columns' layouts are checked once.
   */
  public static byte[][] ranges(List<FieldVector> columns, int[] starts) {
    for (int p = 0; p + 1 < starts.length; p++) {
      if (starts[p] < 0 || starts[p + 1] < starts[p]) {
        throw new IllegalArgumentException("run " + p + " [" + starts[p] + ", " + starts[p + 1] + ") is no range");
      }
    }
    byte[] kinds = kinds(columns, starts.length == 0 ? 0 : starts[starts.length - 1]);
    byte[][] slices = new byte[Math.max(0, starts.length - 1)][];
    for (int p = 0; p < slices.length; p++) {
      if (starts[p + 1] > starts[p]) slices[p] = range(columns, kinds, starts[p], starts[p + 1]);
    }
    return slices;
  }

  private static byte[] range(List<FieldVector> columns, byte[] kinds, int from, int to) {
    int rows = to - from;
    boolean[] nulls = new boolean[kinds.length];
    long size = HEADER_BYTES;
    for (int c = 0; c < kinds.length; c++) {
      FieldVector v = columns.get(c);
      nulls[c] = hasNull(v.getValidityBufferAddress(), from, rows);
      size += COLUMN_HEADER_BYTES + valuesBytes(kinds[c], rows) + (nulls[c] ? bitBytes(rows) : 0);
      if (kinds[c] == VARIABLE && rows > 0) {
        long offsets = offsetsAddress(v);
        size += Platform.getInt(null, offsets + 4L * to) - Platform.getInt(null, offsets + 4L * from);
      }
    }
    byte[] slice = new byte[checkedSize(size)];
    long at = putHeader(slice, rows, kinds.length);
    for (int c = 0; c < kinds.length; c++) {
      FieldVector v = columns.get(c);
      at = putColumnHeader(slice, at, kinds[c], nulls[c]);
      if (nulls[c]) at = copyBits(v.getValidityBufferAddress(), from, rows, slice, at);
      at = switch (kinds[c]) {
        case BITS -> copyBits(v.getDataBufferAddress(), from, rows, slice, at);
        case VARIABLE -> copyVariable(offsetsAddress(v) + 4L * from, v.getDataBufferAddress(), rows, slice, at);
        default -> copyIn(v.getDataBufferAddress() + (long) kinds[c] * from, slice, at, (long) kinds[c] * rows);
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

  /** The n <= 64 bits of a bitmap from bit {@code from}, in the low bits; reads no byte past bit from + n. */
  private static long bits(long bitmap, long from, int n) {
    long address = bitmap + (from >>> 3);
    int shift = (int) (from & 7);
    int bytes = (shift + n + 7) >>> 3;  // at most 9
    long word;
    if (bytes >= 8) {
      word = Platform.getLong(null, address) >>> shift;
      if (bytes == 9) word |= (Platform.getByte(null, address + 8) & 0xFFL) << (64 - shift);
    } else {
      word = 0;
      for (int b = 0; b < bytes; b++) word |= (Platform.getByte(null, address + b) & 0xFFL) << (8 * b);
      word >>>= shift;
    }
    return word & lowBits(n);
  }

  private static long lowBits(int n) {
    return n == 64 ? -1L : (1L << n) - 1;
  }

  private static boolean hasNull(long validity, int from, int rows) {
    for (int k = 0; k < rows; k += 64) {
      int n = Math.min(64, rows - k);
      if ((~bits(validity, from + (long) k, n) & lowBits(n)) != 0) return true;
    }
    return false;
  }

  /** Bits [from, from + n) of a bitmap, packed from bit 0 (bits past n clear). */
  private static long copyBits(long bitmap, int from, int n, byte[] slice, long at) {
    for (int k = 0; k < n; k += 64) {
      int m = Math.min(64, n - k);
      long word = bits(bitmap, from + (long) k, m);
      if (m == 64) {
        Platform.putLong(slice, at, word);
        at += 8;
      } else {
        for (int b = 0; b < (m + 7) >>> 3; b++) Platform.putByte(slice, at++, (byte) (word >>> (8 * b)));
      }
    }
    return at;
  }

  private static long copyIn(long address, byte[] slice, long at, long bytes) {
    Platform.copyMemory(null, address, slice, at, bytes);
    return at + bytes;
  }

  /** Offsets (re-based to 0 where they do not start there) and data of the rows whose offsets start at offsets. */
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
}
