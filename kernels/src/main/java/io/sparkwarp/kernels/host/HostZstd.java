package io.sparkwarp.kernels.host;

import com.github.luben.zstd.Zstd;
import io.sparkwarp.kernels.parquet.DecodeError;

/**
 * The reference ZSTD decompressor: zstd-jni (the library Spark and parquet-mr decompress ZSTD pages with), its
 * errors mapped to those of {@code zstd.cuh}: output past the page's size, input that ends early, and any other
 * corruption as a bad frame.
 */
final class HostZstd {
  private HostZstd() {}

  /** Decompresses [src, src + srcLen) into exactly dstLen bytes at dst; returns the error, or NONE. */
  static DecodeError decompress(long src, long srcLen, long dst, long dstLen) {
    long result = Zstd.decompressUnsafe(dst, dstLen, src, srcLen);
    if (Zstd.isError(result)) {
      long code = Zstd.getErrorCode(result);
      if (code == Zstd.errDstSizeTooSmall()) return DecodeError.OVERRUN;
      if (code == Zstd.errSrcSizeWrong()) return DecodeError.TRUNCATED;
      return DecodeError.BAD_FRAME;
    }
    return result == dstLen ? DecodeError.NONE : DecodeError.SIZE_MISMATCH;
  }
}
