package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.parquet.DecodeError;

/**
 * Reference of {@code delta_binary_packed.cuh}: Parquet's DELTA_BINARY_PACKED values of one page, value by value, with
 * the same checks in the same order. Sums wrap in 64 bits (an INT32 column's values are the low 32 bits).
 */
final class HostDeltaBinaryPacked {
  private HostDeltaBinaryPacked() {}

  /** Receives the i-th decoded value. */
  interface Emit {
    void accept(long i, long value);
  }

  static DecodeError decode(HostBytes src, long count, Emit emit) {
    long[] v = new long[1];
    long[] header = new long[4];  // values per block, miniblocks, value count, first value
    for (int h = 0; h < 4; h++) {
      DecodeError err = src.varint64(v);
      if (err != DecodeError.NONE) return err;
      header[h] = v[0];
    }
    long blockValues = header[0];
    long miniblocks = header[1];
    if (blockValues == 0 || Long.remainderUnsigned(blockValues, 128) != 0 || Long.compareUnsigned(blockValues, 1 << 20) > 0
        || miniblocks == 0 || Long.remainderUnsigned(blockValues, miniblocks) != 0
        || Long.remainderUnsigned(Long.divideUnsigned(blockValues, miniblocks), 32) != 0) {
      return DecodeError.BAD_HEADER;
    }
    if (header[2] != count) return DecodeError.SIZE_MISMATCH;
    if (count == 0) return DecodeError.NONE;
    long perMiniblock = blockValues / miniblocks;
    long last = zigzag(header[3]);
    emit.accept(0, last);
    long done = 1;
    while (done < count) {
      DecodeError err = src.varint64(v);
      if (err != DecodeError.NONE) return err;
      long minDelta = zigzag(v[0]);
      long widths = src.position();
      if (widths + miniblocks > src.length()) return DecodeError.TRUNCATED;
      long pos = widths + miniblocks;
      for (long m = 0; m < miniblocks && done < count; m++) {
        int width = src.u8(widths + m);
        if (width > 64) return DecodeError.BAD_BIT_WIDTH;
        long n = Math.min(count - done, perMiniblock);
        if (pos + (n * width + 7) / 8 > src.length()) return DecodeError.TRUNCATED;
        for (long i = 0; i < n; i++) {
          last += minDelta + src.bits(pos, i * width, width);
          emit.accept(done + i, last);
        }
        done += n;
        pos += perMiniblock * width / 8;
      }
      src.seek(pos);
    }
    return DecodeError.NONE;
  }

  private static long zigzag(long n) {
    return (n >>> 1) ^ -(n & 1);
  }
}
