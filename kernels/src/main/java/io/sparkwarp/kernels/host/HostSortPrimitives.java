package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.sort.PackedKeys;
import io.sparkwarp.kernels.sort.SortPrimitives;
import java.util.List;
import org.apache.arrow.memory.util.MemoryUtil;

/** {@link SortPrimitives} as Java loops: the reference {@code sort.cu} and {@code sort_keys.cuh} are tested against. */
final class HostSortPrimitives implements SortPrimitives {
  @Override
  public void keyStatistics(DeviceColumn key, int rows, DeviceBuffer stats, int at, DeviceStream stream) {
    SortPrimitives.checkStatisticsArguments(key, rows, stats, at);
    DeviceType.Kind kind = key.type().kind();
    long validity = key.validity().address();
    long data = key.data().address();
    long[] words = new long[STATISTICS_WORDS];
    for (int i = 0; i < rows; i++) {
      if (!HostBatchPrimitives.getBit(validity, i)) {
        words[5]++;
      } else if (key.type().isVariableWidth()) {
        words[4] = Math.max(words[4], length(key, i));
      } else {
        long low = keyLow(kind, data, i);
        long high = keyHigh(kind, data, i);
        words[0] |= low;
        words[1] |= high;
        words[2] |= ~low;
        words[3] |= ~high;
      }
    }
    // added into the words, as the kernel's atomics do
    long out = stats.address() + 8L * at;
    for (int w = 0; w < 4; w++) MemoryUtil.putLong(out + 8L * w, MemoryUtil.getLong(out + 8L * w) | words[w]);
    MemoryUtil.putLong(out + 32, Math.max(MemoryUtil.getLong(out + 32), words[4]));
    MemoryUtil.putLong(out + 40, MemoryUtil.getLong(out + 40) + words[5]);
  }

  @Override
  public void nullCount(DeviceColumn key, int rows, DeviceBuffer stats, int at, DeviceStream stream) {
    SortPrimitives.checkStatisticsArguments(key, rows, stats, at);
    long validity = key.validity().address();
    long nulls = 0;
    for (int i = 0; i < rows; i++) {
      if (!HostBatchPrimitives.getBit(validity, i)) nulls++;
    }
    long out = stats.address() + 8L * (at + 5);
    MemoryUtil.putLong(out, MemoryUtil.getLong(out) + nulls);
  }

  @Override
  public void ranks(DeviceBuffer order, int rows, DeviceBuffer ranks, DeviceStream stream) {
    SortPrimitives.checkRanksArguments(order, rows, ranks);
    for (int j = 0; j < rows; j++) {
      int r = MemoryUtil.getInt(order.address() + 4L * j);
      if (r >= 0 && r < rows) MemoryUtil.putInt(ranks.address() + 4L * r, j);
    }
  }

  @Override
  public void rowsAt(DeviceColumn positions, DeviceBuffer order, int rows, DeviceBuffer rowIds, DeviceStream stream) {
    SortPrimitives.checkRowsAtArguments(positions, order, rows, rowIds);
    long validity = positions.validity().address();
    for (int g = 0; g < positions.rowCount(); g++) {
      int p = MemoryUtil.getInt(positions.data().address() + 4L * g);
      boolean hit = HostBatchPrimitives.getBit(validity, g) && p >= 0 && p < rows;
      MemoryUtil.putInt(rowIds.address() + 4L * g, hit ? MemoryUtil.getInt(order.address() + 4L * p) : -1);
    }
  }

  @Override
  public void digits(DeviceColumn key, int rows, DeviceBuffer order, int position, boolean ascending,
      DeviceBuffer digits, DeviceStream stream) {
    SortPrimitives.checkDigitArguments(key, rows, order, position, digits);
    DeviceType.Kind kind = key.type().kind();
    int top = SortPrimitives.buckets(kind) - 1;
    long validity = key.validity().address();
    long data = key.data().address();
    for (int j = 0; j < rows; j++) {
      int r = row(order, j);
      int d = 0;
      if (HostBatchPrimitives.getBit(validity, r)) {
        d = key.type().isVariableWidth() ? stringDigit(key, r, position) : keyDigit(kind, data, r, position);
        if (!ascending) d = top - d;
      }
      MemoryUtil.putInt(digits.address() + 4L * j, d);
    }
  }

  @Override
  public void nullDigits(DeviceColumn key, int rows, DeviceBuffer order, boolean nullsFirst, DeviceBuffer digits,
      DeviceStream stream) {
    SortPrimitives.checkDigitArguments(key, rows, order, NULLS, digits);
    long validity = key.validity().address();
    for (int j = 0; j < rows; j++) {
      boolean valid = HostBatchPrimitives.getBit(validity, row(order, j));
      MemoryUtil.putInt(digits.address() + 4L * j, valid == nullsFirst ? 1 : 0);
    }
  }

  @Override
  public void groupByDigit(DeviceBuffer digits, int rows, int buckets, DeviceBuffer order, DeviceBuffer out,
      DeviceStream stream) {
    SortPrimitives.checkGroupArguments(digits, rows, buckets, order, out);
    HostStableGrouping.group(digits, rows, buckets, order, out);
  }

  @Override
  public void digitCounts(PackedKeys keys, DeviceBuffer words, int rows, List<PackedKeys.Pass> passes,
      DeviceBuffer counts, DeviceBuffer packed, DeviceStream stream) {
    SortPrimitives.checkCountArguments(keys, words, rows, passes, counts, packed);
    int[] cells = new int[DIGIT_CELLS * passes.size()];
    for (int i = 0; i < rows; i++) {
      long w = word(keys, words, i);
      if (packed != null) MemoryUtil.putLong(packed.address() + 8L * i, w);
      for (int p = 0; p < passes.size(); p++) {
        PackedKeys.Pass pass = passes.get(p);
        cells[DIGIT_CELLS * p + digit(w, pass.shift(), pass.bits())]++;
      }
    }
    for (int c = 0; c < cells.length; c++) MemoryUtil.putInt(counts.address() + 4L * c, cells[c]);
  }

  @Override
  public void pairPass(PackedKeys keys, DeviceBuffer words, DeviceBuffer rowIds, int rows, int shift, int bits,
      DeviceBuffer counts, int pass, DeviceBuffer wordsOut, DeviceBuffer rowIdsOut, DeviceStream stream) {
    SortPrimitives.checkPairArguments(keys, words, rowIds, rows, shift, bits, counts, pass, wordsOut, rowIdsOut);
    // each digit's next position: after the digits below it
    int[] next = new int[1 << bits];
    for (int d = 0, at = 0; d < next.length; d++) {
      next[d] = at;
      at += MemoryUtil.getInt(counts.address() + 4L * (DIGIT_CELLS * pass + d));
    }
    for (int i = 0; i < rows; i++) {
      long w = word(keys, words, i);
      int at = next[digit(w, shift, bits)]++;
      if (wordsOut != null) MemoryUtil.putLong(wordsOut.address() + 8L * at, w);
      MemoryUtil.putInt(rowIdsOut.address() + 4L * at, row(rowIds, i));
    }
  }

  /** Row i's word: words[i], or packed from the key columns of {@code keys}. */
  private static long word(PackedKeys keys, DeviceBuffer words, int i) {
    return words == null ? packedWord(keys, i) : MemoryUtil.getLong(words.address() + 8L * i);
  }

  private static int digit(long word, int shift, int bits) {
    return (int) (word >>> shift) & ((1 << bits) - 1);
  }

  private static long packedWord(PackedKeys keys, int i) {
    long word = 0;
    for (PackedKeys.Field f : keys.fields()) {
      boolean valid = HostBatchPrimitives.getBit(f.column().validity().address(), i);
      long v = 0;
      if (valid && f.width() > 0) {
        long key = keyLow(f.column().type().kind(), f.column().data().address(), i) ^ (f.descending() ? -1L : 0);
        v = (key >>> f.low()) & (f.width() == 64 ? -1L : (1L << f.width()) - 1);
      }
      if (f.nullFlag() && valid == f.nullsFirst()) v |= 1L << f.width();
      word |= v << f.shift();
    }
    return word;
  }

  /** order[j], or j for the identity order (null). */
  private static int row(DeviceBuffer order, int j) {
    return order == null ? j : MemoryUtil.getInt(order.address() + 4L * j);
  }

  /** Byte {@code position} of row i's sortable key. */
  private static int keyDigit(DeviceType.Kind kind, long data, int i, int position) {
    long word = position < 8 ? keyLow(kind, data, i) : keyHigh(kind, data, i);
    return (int) ((word >>> (8 * (position & 7))) & 0xFF);
  }

  /** The low word of row i's sortable key: sort_keys.cuh's sortable_key, signed values with the sign bit flipped. */
  static long keyLow(DeviceType.Kind kind, long data, int i) {
    return switch (kind) {
      case BOOLEAN -> HostBatchPrimitives.getBit(data, i) ? 1 : 0;
      case BYTE -> (MemoryUtil.getByte(data + i) & 0xFF) ^ 0x80;
      case SHORT -> (MemoryUtil.getShort(data + 2L * i) & 0xFFFF) ^ 0x8000;
      case INT, DATE -> (MemoryUtil.getInt(data + 4L * i) & 0xFFFFFFFFL) ^ 0x80000000L;
      case FLOAT -> sortableFloat(Float.intBitsToFloat(MemoryUtil.getInt(data + 4L * i)));
      case DOUBLE -> sortableDouble(Double.longBitsToDouble(MemoryUtil.getLong(data + 8L * i)));
      case LONG, TIMESTAMP, DECIMAL -> MemoryUtil.getLong(data + 8L * i) ^ Long.MIN_VALUE;
      case DECIMAL128 -> MemoryUtil.getLong(data + 16L * i);
      case STRING, BINARY -> throw new IllegalArgumentException(kind + " has no fixed-width sortable key");
    };
  }

  /** The high word of row i's sortable key: only 128-bit decimals have one. */
  static long keyHigh(DeviceType.Kind kind, long data, int i) {
    return kind == DeviceType.Kind.DECIMAL128 ? MemoryUtil.getLong(data + 16L * i + 8) ^ Long.MIN_VALUE : 0;
  }

  /**
   * SQLOrderingUtil's order as unsigned bits: -0.0 as 0.0, every NaN as Java's canonical one (above +Infinity), then
   * negatives with every bit flipped and non-negatives with the sign bit set.
   */
  private static long sortableFloat(float f) {
    int bits = f == 0.0f ? 0 : Float.floatToIntBits(f);
    return (bits < 0 ? ~bits : bits | 0x80000000) & 0xFFFFFFFFL;
  }

  private static long sortableDouble(double d) {
    long bits = d == 0.0 ? 0 : Double.doubleToLongBits(d);
    return bits < 0 ? ~bits : bits | Long.MIN_VALUE;
  }

  /** The byte at {@code position} of string i plus 1, or 0 past its end. */
  private static int stringDigit(DeviceColumn key, int i, int position) {
    int start = MemoryUtil.getInt(key.offsets().address() + 4L * i);
    return position < length(key, i) ? (MemoryUtil.getByte(key.data().address() + start + position) & 0xFF) + 1 : 0;
  }

  private static int length(DeviceColumn key, int i) {
    long offsets = key.offsets().address();
    return MemoryUtil.getInt(offsets + 4L * i + 4) - MemoryUtil.getInt(offsets + 4L * i);
  }
}
