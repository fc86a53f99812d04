package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.parquet.DecodeError;

/** The reference RLE / bit-packed hybrid decoder: {@code rle_hybrid.cuh} one value at a time. */
final class HostRleHybrid {
  /** Receives value {@code i} of the run. */
  interface Sink {
    void accept(long i, long value);
  }

  private HostRleHybrid() {}

  /** Decodes the first {@code count} values of {@code bitWidth} bits from {@code in}; returns the error or NONE. */
  static DecodeError decode(HostBytes in, int bitWidth, long count, Sink sink) {
    if (bitWidth > 32) return DecodeError.BAD_BIT_WIDTH;
    long done = 0;
    long[] header = new long[1];
    while (done < count) {
      DecodeError err = in.varint(header);
      if (err != DecodeError.NONE) return err;
      long pos = in.position();
      if ((header[0] & 1) != 0) {
        long n = Math.min((header[0] >>> 1) * 8, count - done);
        if (pos + (n * bitWidth + 7) / 8 > in.length()) return DecodeError.TRUNCATED;
        for (long i = 0; i < n; i++) sink.accept(done + i, in.bits(pos, i * bitWidth, bitWidth));
        in.seek(pos + (header[0] >>> 1) * bitWidth);
        done += n;
      } else {
        int bytes = (bitWidth + 7) >>> 3;
        if (pos + bytes > in.length()) return DecodeError.TRUNCATED;
        long value = in.le(pos, bytes);
        in.seek(pos + bytes);
        long n = Math.min(header[0] >>> 1, count - done);
        for (long i = 0; i < n; i++) sink.accept(done + i, value);
        done += n;
      }
    }
    return DecodeError.NONE;
  }
}
