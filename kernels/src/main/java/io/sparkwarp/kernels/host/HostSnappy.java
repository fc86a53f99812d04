package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.parquet.DecodeError;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * The reference Snappy decompressor: one element after another, every read and write bounds-checked, the errors of
 * {@code snappy.cuh}. Raw Snappy (a varint length, then literals and copies), as Parquet pages hold it.
 */
final class HostSnappy {
  private HostSnappy() {}

  /** Decompresses [src, src + srcLen) into exactly dstLen bytes at dst; returns the error, or NONE. */
  static DecodeError decompress(long src, long srcLen, long dst, long dstLen) {
    HostBytes in = new HostBytes(src, srcLen);
    long[] declared = new long[1];
    DecodeError err = in.varint(declared);
    if (err != DecodeError.NONE) return err;
    if (declared[0] != dstLen) return DecodeError.SIZE_MISMATCH;
    long out = 0;
    while (in.position() < srcLen) {
      int tag = in.u8(in.position());
      long pos = in.position();
      long length;
      long offset;
      switch (tag & 3) {
        case 0 -> {
          long n = tag >>> 2;
          pos++;
          if (n >= 60) {
            int bytes = (int) n - 59;
            if (pos + bytes > srcLen) return DecodeError.TRUNCATED;
            n = in.le(pos, bytes);
            pos += bytes;
          }
          length = n + 1;
          if (pos + length > srcLen) return DecodeError.TRUNCATED;
          if (out + length > dstLen) return DecodeError.OVERRUN;
          MemoryUtil.copyMemory(src + pos, dst + out, length);
          out += length;
          in.seek(pos + length);
          continue;
        }
        case 1 -> {
          if (pos + 2 > srcLen) return DecodeError.TRUNCATED;
          length = ((tag >>> 2) & 7) + 4;
          offset = ((long) (tag >>> 5) << 8) | in.u8(pos + 1);
          pos += 2;
        }
        case 2 -> {
          if (pos + 3 > srcLen) return DecodeError.TRUNCATED;
          length = (tag >>> 2) + 1;
          offset = in.le(pos + 1, 2);
          pos += 3;
        }
        default -> {
          if (pos + 5 > srcLen) return DecodeError.TRUNCATED;
          length = (tag >>> 2) + 1;
          offset = in.le(pos + 1, 4);
          pos += 5;
        }
      }
      if (offset == 0 || offset > out) return DecodeError.BAD_OFFSET;
      if (out + length > dstLen) return DecodeError.OVERRUN;
      for (long i = 0; i < length; i++) {
        MemoryUtil.putByte(dst + out + i, MemoryUtil.getByte(dst + out - offset + i));
      }
      out += length;
      in.seek(pos);
    }
    return out == dstLen ? DecodeError.NONE : DecodeError.SIZE_MISMATCH;
  }
}
