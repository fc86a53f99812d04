package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.sort.TopSelectPrimitives;
import org.apache.arrow.memory.util.MemoryUtil;

/** {@link TopSelectPrimitives} as Java loops: the reference {@code select_top.cu} is tested against. */
final class HostTopSelectPrimitives implements TopSelectPrimitives {
  @Override
  public void prefixes(DeviceColumn key, boolean ascending, boolean nullsFirst, int rows, DeviceBuffer prefixes,
      DeviceStream stream) {
    TopSelectPrimitives.checkPrefixArguments(key, rows, prefixes);
    for (int i = 0; i < rows; i++) {
      boolean valid = HostBatchPrimitives.getBit(key.validity().address(), i);
      long nullBit = valid == nullsFirst ? Long.MIN_VALUE : 0;
      long value = valid ? (ascending ? sortableBits(key, i) : ~sortableBits(key, i)) >>> 1 : 0;
      MemoryUtil.putLong(prefixes.address() + 8L * i, nullBit | value);
    }
  }

  /** The highest 64 bits of row i's sortable key, left-aligned: select_top.cu's top_prefix before the flips. */
  private static long sortableBits(DeviceColumn key, int i) {
    DeviceType.Kind kind = key.type().kind();
    long data = key.data().address();
    return switch (kind) {
      case STRING, BINARY -> leadingBytes(key, i);
      case DECIMAL128 -> HostSortPrimitives.keyHigh(kind, data, i);
      case BOOLEAN -> HostSortPrimitives.keyLow(kind, data, i) << 63;
      case BYTE -> HostSortPrimitives.keyLow(kind, data, i) << 56;
      case SHORT -> HostSortPrimitives.keyLow(kind, data, i) << 48;
      case INT, DATE, FLOAT -> HostSortPrimitives.keyLow(kind, data, i) << 32;
      case LONG, DOUBLE, TIMESTAMP, DECIMAL -> HostSortPrimitives.keyLow(kind, data, i);
    };
  }

  /** The first 8 bytes of string i, big-endian, 0 past its end. */
  private static long leadingBytes(DeviceColumn key, int i) {
    int start = MemoryUtil.getInt(key.offsets().address() + 4L * i);
    int length = MemoryUtil.getInt(key.offsets().address() + 4L * i + 4) - start;
    long word = 0;
    for (int b = 0; b < 8; b++) {
      word = word << 8 | (b < length ? MemoryUtil.getByte(key.data().address() + start + b) & 0xFF : 0);
    }
    return word;
  }

  @Override
  public int[] histogram(DeviceBuffer prefixes, int rows, int shift, long pinned, DeviceStream stream) {
    TopSelectPrimitives.checkHistogramArguments(prefixes, rows, shift);
    int[] counts = new int[BUCKETS];
    for (int i = 0; i < rows; i++) {
      long p = MemoryUtil.getLong(prefixes.address() + 8L * i);
      if (shift == 56 || p >>> (shift + 8) == pinned >>> (shift + 8)) counts[(int) (p >>> shift) & 0xFF]++;
    }
    return counts;
  }

  @Override
  public void candidates(DeviceBuffer prefixes, int rows, long cutoff, DeviceBuffer rowIds, DeviceStream stream) {
    TopSelectPrimitives.checkHistogramArguments(prefixes, rows, 0);
    int count = 0;
    for (int i = 0; i < rows; i++) {
      if (Long.compareUnsigned(MemoryUtil.getLong(prefixes.address() + 8L * i), cutoff) <= 0) {
        rowIds.checkRange(4L * count, 4);
        MemoryUtil.putInt(rowIds.address() + 4L * count++, i);
      }
    }
  }
}
