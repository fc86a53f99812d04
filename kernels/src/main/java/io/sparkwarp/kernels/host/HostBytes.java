package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.parquet.DecodeError;
import org.apache.arrow.memory.util.MemoryUtil;

/** A bounded range of host memory read as Parquet and Snappy read bytes: unsigned bytes, little-endian, varints. */
final class HostBytes {
  private final long base;
  private final long length;
  private long position;

  HostBytes(long base, long length) {
    this.base = base;
    this.length = length;
  }

  /** The host address of byte {@code at}. */
  long address(long at) {
    return base + at;
  }

  long position() {
    return position;
  }

  long length() {
    return length;
  }

  void seek(long to) {
    position = to;
  }

  /** The unsigned byte at {@code at} (which the caller checked is inside). */
  int u8(long at) {
    return MemoryUtil.getByte(base + at) & 0xff;
  }

  /** Little-endian unsigned value of {@code n} <= 8 bytes at {@code at}. */
  long le(long at, int n) {
    long v = 0;
    for (int k = 0; k < n; k++) v |= (long) u8(at + k) << (8 * k);
    return v;
  }

  /**
   * Bits [bit, bit + width) after byte {@code at}, least significant first (Parquet's bit packing), reading only the
   * bytes they span (width <= 64): varint.cuh's unpack_bits.
   */
  long bits(long at, long bit, int width) {
    if (width == 0) return 0;
    long p = at + (bit >>> 3);
    int shift = (int) (bit & 7);
    int bytes = (shift + width + 7) >>> 3;
    long v = le(p, Math.min(bytes, 8)) >>> shift;
    if (bytes == 9) v |= (long) u8(p + 8) << (64 - shift);
    return width == 64 ? v : v & ((1L << width) - 1);
  }

  /** Reads a varint at the position into value[0]: varint.cuh's rules (at most 35 bits). */
  DecodeError varint(long[] value) {
    return varint(value, 35);
  }

  /** Reads a 64-bit varint (up to 10 bytes) at the position into value[0]: varint.cuh's read_uleb64. */
  DecodeError varint64(long[] value) {
    return varint(value, 70);
  }

  private DecodeError varint(long[] value, int bits) {
    long v = 0;
    for (int shift = 0; shift < bits; shift += 7) {
      if (position >= length) return DecodeError.TRUNCATED;
      int b = u8(position++);
      v |= (long) (b & 0x7f) << shift;
      if ((b & 0x80) == 0) {
        value[0] = v;
        return DecodeError.NONE;
      }
    }
    return DecodeError.BAD_HEADER;
  }
}
