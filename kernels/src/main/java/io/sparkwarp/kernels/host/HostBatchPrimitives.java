package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.primitives.BatchPrimitives;
import org.apache.arrow.memory.util.MemoryUtil;

/** Reference {@link BatchPrimitives}: bit by bit and element by element, obviously right rather than fast. */
final class HostBatchPrimitives implements BatchPrimitives {
  static boolean getBit(long address, long bit) {
    return (MemoryUtil.getByte(address + (bit >>> 3)) >> (bit & 7) & 1) != 0;
  }

  static void setBit(long address, long bit, boolean value) {
    long at = address + (bit >>> 3);
    int mask = 1 << (bit & 7);
    byte b = MemoryUtil.getByte(at);
    MemoryUtil.putByte(at, (byte) (value ? b | mask : b & ~mask));
  }

  @Override
  public void copyBits(DeviceBuffer src, long srcBit, DeviceBuffer dst, long dstBit, long nbits,
      DeviceStream stream) {
    if (nbits == 0) return;
    src.checkRange(0, (srcBit + nbits + 7) / 8);
    dst.checkRange(0, (dstBit + nbits + 7) / 8);
    for (long i = 0; i < nbits; i++) setBit(dst.address(), dstBit + i, getBit(src.address(), srcBit + i));
  }

  @Override
  public void fillBits(DeviceBuffer dst, long dstBit, long nbits, boolean value, DeviceStream stream) {
    if (nbits == 0) return;
    dst.checkRange(0, (dstBit + nbits + 7) / 8);
    for (long i = 0; i < nbits; i++) setBit(dst.address(), dstBit + i, value);
  }

  @Override
  public void rebaseOffsets(DeviceBuffer src, long srcIndex, long count, DeviceBuffer dst, long dstIndex, int add,
      DeviceStream stream) {
    if (count == 0) return;
    src.checkRange(4 * srcIndex, 4 * count);
    dst.checkRange(4 * dstIndex, 4 * count);
    long in = src.address() + 4 * srcIndex;
    long out = dst.address() + 4 * dstIndex;
    int base = MemoryUtil.getInt(in);
    for (long i = 0; i < count; i++) MemoryUtil.putInt(out + 4 * i, MemoryUtil.getInt(in + 4 * i) - base + add);
  }

  @Override
  public void decimal128To64(DeviceBuffer src, DeviceBuffer dst, long count, DeviceStream stream) {
    src.checkRange(0, 16 * count);
    dst.checkRange(0, 8 * count);
    for (long i = 0; i < count; i++) {
      MemoryUtil.putLong(dst.address() + 8 * i, MemoryUtil.getLong(src.address() + 16 * i));
    }
  }

  @Override
  public void decimal64To128(DeviceBuffer src, DeviceBuffer dst, long count, DeviceStream stream) {
    src.checkRange(0, 8 * count);
    dst.checkRange(0, 16 * count);
    for (long i = 0; i < count; i++) {
      long v = MemoryUtil.getLong(src.address() + 8 * i);
      MemoryUtil.putLong(dst.address() + 16 * i, v);
      MemoryUtil.putLong(dst.address() + 16 * i + 8, v >> 63);
    }
  }
}
