package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.parquet.DecodeError;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * The reference LZ4 decompressor: one sequence after another, every read and write bounds-checked, the errors of
 * {@code lz4.cuh}. Parquet's LZ4_RAW (one LZ4 block) and LZ4 (Hadoop's framing of LZ4 blocks, as parquet-mr writes
 * it). A block must end with a sequence of literals alone (the lz4 block format's first end-of-block rule; the
 * others, which a decoder may enforce, are not).
 */
final class HostLz4 {
  private HostLz4() {}

  /** Decompresses one LZ4 block [src, src + srcLen) into exactly dstLen bytes at dst; returns the error, or NONE. */
  static DecodeError decompressRaw(long src, long srcLen, long dst, long dstLen) {
    long[] produced = new long[1];
    DecodeError err = block(new HostBytes(src, srcLen), dst, dstLen, produced);
    if (err != DecodeError.NONE) return err;
    return produced[0] == dstLen ? DecodeError.NONE : DecodeError.SIZE_MISMATCH;
  }

  /**
   * Decompresses Hadoop-framed LZ4 into exactly dstLen bytes: blocks of a 4-byte big-endian output length, then LZ4
   * blocks of a 4-byte big-endian stored length each until that output is made.
   */
  static DecodeError decompressHadoop(long src, long srcLen, long dst, long dstLen) {
    HostBytes in = new HostBytes(src, srcLen);
    long pos = 0;
    long out = 0;
    long[] produced = new long[1];
    while (pos < srcLen) {
      if (srcLen - pos < 4) return DecodeError.TRUNCATED;
      long block = bigEndian32(in, pos);
      pos += 4;
      if (block > dstLen - out) return DecodeError.OVERRUN;
      long blockEnd = out + block;
      while (out < blockEnd) {
        if (srcLen - pos < 4) return DecodeError.TRUNCATED;
        long stored = bigEndian32(in, pos);
        pos += 4;
        if (stored > srcLen - pos) return DecodeError.TRUNCATED;
        DecodeError err = block(new HostBytes(src + pos, stored), dst + out, blockEnd - out, produced);
        if (err != DecodeError.NONE) return err;
        out += produced[0];
        pos += stored;
      }
    }
    return out == dstLen ? DecodeError.NONE : DecodeError.SIZE_MISMATCH;
  }

  private static long bigEndian32(HostBytes in, long at) {
    return ((long) in.u8(at) << 24) | (in.u8(at + 1) << 16) | (in.u8(at + 2) << 8) | in.u8(at + 3);
  }

  /** One LZ4 block into at most {@code capacity} bytes at dst, produced[0] of them. An empty block is empty. */
  private static DecodeError block(HostBytes in, long dst, long capacity, long[] produced) {
    long len = in.length();
    long pos = 0;
    long out = 0;
    long[] length = new long[1];
    while (pos < len) {
      int token = in.u8(pos);
      long q = pos + 1;
      length[0] = token >>> 4;
      if (length[0] == 15) {
        q = lengthBytes(in, q, length);
        if (q < 0) return DecodeError.TRUNCATED;
      }
      long literals = length[0];
      if (literals > len - q) return DecodeError.TRUNCATED;
      if (literals > capacity - out) return DecodeError.OVERRUN;
      MemoryUtil.copyMemory(in.address(q), dst + out, literals);
      out += literals;
      q += literals;
      if (q == len) break;  // the last sequence: literals alone
      if (q + 2 > len) return DecodeError.TRUNCATED;
      long offset = in.le(q, 2);
      q += 2;
      length[0] = token & 15;
      if (length[0] == 15) {
        q = lengthBytes(in, q, length);
        if (q < 0) return DecodeError.TRUNCATED;
      }
      long match = length[0] + 4;
      if (q >= len) return DecodeError.TRUNCATED;  // no last sequence
      if (offset == 0 || offset > out) return DecodeError.BAD_OFFSET;
      if (match > capacity - out) return DecodeError.OVERRUN;
      for (long i = 0; i < match; i++) {
        MemoryUtil.putByte(dst + out + i, MemoryUtil.getByte(dst + out - offset + i));
      }
      out += match;
      pos = q;
    }
    produced[0] = out;
    return DecodeError.NONE;
  }

  /**
   * Adds the length bytes at {@code q} (255 meaning another follows) to length[0]; returns the position after them,
   * or -1 when the block ends inside them.
   */
  private static long lengthBytes(HostBytes in, long q, long[] length) {
    while (q < in.length()) {
      int b = in.u8(q++);
      length[0] += b;
      if (b != 255) return q;
    }
    return -1;
  }
}
