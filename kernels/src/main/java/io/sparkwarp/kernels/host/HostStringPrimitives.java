package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.strings.MatchResult;
import io.sparkwarp.kernels.strings.PivotedStrings;
import io.sparkwarp.kernels.strings.StringArguments;
import io.sparkwarp.kernels.strings.StringLayout;
import io.sparkwarp.kernels.strings.StringMatcher;
import io.sparkwarp.kernels.strings.StringPrimitives;
import io.sparkwarp.kernels.strings.Utf8Substring;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Reference {@link StringPrimitives}: the layouts of {@link PivotedStrings} written byte by byte through their
 * address formulas, and each row decided by {@link StringMatcher#matches} over its bytes, read from the plain column
 * or, when a layout is given, gathered back from the layout (its starts as stored, then the same formulas), so that
 * matching through a layout also checks the layout. There are no lanes: refill changes nothing and the lane counters
 * are 0. A substring is each row's {@link Utf8Substring#range} copied out.
 */
final class HostStringPrimitives implements StringPrimitives {
  private final Backend backend;

  HostStringPrimitives(Backend backend) {
    this.backend = backend;
  }

  @Override
  public PivotedStrings pivot(DeviceColumn strings, StringLayout layout, DeviceStream stream) {
    StringArguments.checkPivot(strings, layout);
    int rows = strings.rowCount();
    long[] starts = layout == StringLayout.PIVOTED ? groupStarts(strings) : rowStarts(strings);
    long dataBytes = starts[starts.length - 1];
    DeviceBuffer startsBuffer = backend.allocate(8L * starts.length, stream);
    DeviceBuffer data = null;
    try {
      for (int i = 0; i < starts.length; i++) MemoryUtil.putLong(startsBuffer.address() + 8L * i, starts[i]);
      data = backend.allocate(dataBytes, stream);
      backend.fill(data, 0, dataBytes, (byte) 0, stream);
      for (int r = 0; r < rows; r++) {
        int begin = offset(strings, r);
        int n = offset(strings, r + 1) - begin;
        for (int b = 0; b < n; b++) {
          byte value = MemoryUtil.getByte(strings.data().address() + begin + b);
          MemoryUtil.putByte(data.address() + byteOffset(layout, starts, r, n, b), value);
        }
      }
      return new PivotedStrings(layout, rows, startsBuffer, data, dataBytes);
    } catch (RuntimeException e) {
      startsBuffer.close();
      if (data != null) data.close();
      throw e;
    }
  }

  @Override
  public MatchResult match(DeviceColumn strings, PivotedStrings pivoted, StringMatcher matcher, boolean refill,
      DeviceStream stream) {
    StringArguments.checkMatch(strings, pivoted, matcher);
    int rows = strings.rowCount();
    long bitmapBytes = (rows + 7) / 8;
    DeviceColumn out = DeviceColumn.allocate(backend, DeviceType.BOOLEAN, rows, 0, stream);
    try {
      backend.copyDeviceToDevice(strings.validity(), 0, out.validity(), 0, bitmapBytes, stream);
      backend.fill(out.data(), 0, bitmapBytes, (byte) 0, stream);
      long[] starts = pivoted == null ? null : storedStarts(pivoted);
      for (int r = 0; r < rows; r++) {
        if (!HostBatchPrimitives.getBit(strings.validity().address(), r)) continue;
        byte[] bytes = pivoted == null ? plainBytes(strings, r) : pivotedBytes(strings, pivoted, starts, r);
        if (matcher.matches(bytes, 0, bytes.length)) HostBatchPrimitives.setBit(out.data().address(), r, true);
      }
      return new MatchResult(out, pivoted == null ? StringLayout.PLAIN : pivoted.layout(), refill, 0, 0);
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
  }

  @Override
  public DeviceColumn substring(DeviceColumn strings, int pos, int len, DeviceStream stream) {
    StringArguments.checkSubstring(strings);
    int rows = strings.rowCount();
    // each row's substring as [begin, end) in the input's bytes; a null row's is empty
    int[] begin = new int[rows];
    int[] end = new int[rows];
    long bytes = 0;
    for (int r = 0; r < rows; r++) {
      if (!HostBatchPrimitives.getBit(strings.validity().address(), r)) continue;
      byte[] s = plainBytes(strings, r);
      long range = Utf8Substring.range(s, 0, s.length, pos, len);
      begin[r] = offset(strings, r) + (int) (range >>> 32);
      end[r] = offset(strings, r) + (int) range;
      bytes += end[r] - begin[r];
    }
    DeviceColumn out = DeviceColumn.allocate(backend, DeviceType.STRING, rows, bytes, stream);
    try {
      backend.copyDeviceToDevice(strings.validity(), 0, out.validity(), 0, (rows + 7) / 8, stream);
      int at = 0;
      MemoryUtil.putInt(out.offsets().address(), 0);
      for (int r = 0; r < rows; r++) {
        backend.copyDeviceToDevice(strings.data(), begin[r], out.data(), at, end[r] - begin[r], stream);
        at += end[r] - begin[r];
        MemoryUtil.putInt(out.offsets().address() + 4L * (r + 1), at);
      }
      return out;
    } catch (RuntimeException e) {
      out.close();
      throw e;
    }
  }

  private static int offset(DeviceColumn strings, int i) {
    return MemoryUtil.getInt(strings.offsets().address() + 4L * i);
  }

  /** PIVOTED: each 32-row group padded to its longest string in whole pieces, for all 32 lanes. */
  private static long[] groupStarts(DeviceColumn strings) {
    int rows = strings.rowCount();
    long[] starts = new long[(rows + 31) / 32 + 1];
    for (int g = 0; g + 1 < starts.length; g++) {
      int longest = 0;
      for (int r = 32 * g; r < Math.min(rows, 32 * g + 32); r++) {
        longest = Math.max(longest, offset(strings, r + 1) - offset(strings, r));
      }
      starts[g + 1] = starts[g] + 32L * 8 * ((longest + 7) / 8);
    }
    return starts;
  }

  /** SELF_PIVOTED: each row as 32 segments of {@link #segmentWidth} bytes. */
  private static long[] rowStarts(DeviceColumn strings) {
    long[] starts = new long[strings.rowCount() + 1];
    for (int r = 0; r + 1 < starts.length; r++) {
      starts[r + 1] = starts[r] + 32 * segmentWidth(offset(strings, r + 1) - offset(strings, r));
    }
    return starts;
  }

  /** Bytes per segment of a self-pivoted string of n bytes: ceil(n / 32 / 8) * 8. */
  private static long segmentWidth(int n) {
    return (n + 255L) / 256 * 8;
  }

  /** Where byte b of row r (n bytes long) lies in the layout's data: the formulas of {@link PivotedStrings}. */
  private static long byteOffset(StringLayout layout, long[] starts, int r, int n, int b) {
    if (layout == StringLayout.PIVOTED) return starts[r / 32] + ((long) (b / 8) * 32 + r % 32) * 8 + b % 8;
    long w = segmentWidth(n);
    long segment = b / w;
    long j = b % w;
    return starts[r] + ((j / 8) * 32 + segment) * 8 + j % 8;
  }

  private static long[] storedStarts(PivotedStrings pivoted) {
    int count = (pivoted.layout() == StringLayout.PIVOTED ? (pivoted.rowCount() + 31) / 32 : pivoted.rowCount()) + 1;
    long[] starts = new long[count];
    for (int i = 0; i < count; i++) starts[i] = MemoryUtil.getLong(pivoted.starts().address() + 8L * i);
    return starts;
  }

  private static byte[] plainBytes(DeviceColumn strings, int r) {
    int begin = offset(strings, r);
    byte[] bytes = new byte[offset(strings, r + 1) - begin];
    MemoryUtil.copyFromMemory(strings.data().address() + begin, bytes, 0, bytes.length);
    return bytes;
  }

  private static byte[] pivotedBytes(DeviceColumn strings, PivotedStrings pivoted, long[] starts, int r) {
    byte[] bytes = new byte[offset(strings, r + 1) - offset(strings, r)];
    for (int b = 0; b < bytes.length; b++) {
      long at = byteOffset(pivoted.layout(), starts, r, bytes.length, b);
      pivoted.data().checkRange(at, 1);
      bytes[b] = MemoryUtil.getByte(pivoted.data().address() + at);
    }
    return bytes;
  }
}
