package io.sparkwarp.kernels.primitives;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;

/**
 * Kernel-level operations on Arrow-layout device columns, used to slice, concatenate, upload and download batches.
 * Bitmaps use Arrow's order: bit i is bit (i % 8) of byte (i / 8). CUDA: {@code batch.cu}.
 */
public interface BatchPrimitives {
  /** dst bits [dstBit, dstBit + nbits) = src bits [srcBit, srcBit + nbits); the other bits of dst are kept. */
  void copyBits(DeviceBuffer src, long srcBit, DeviceBuffer dst, long dstBit, long nbits, DeviceStream stream);

  /** dst bits [dstBit, dstBit + nbits) = value; the other bits of dst are kept. */
  void fillBits(DeviceBuffer dst, long dstBit, long nbits, boolean value, DeviceStream stream);

  /**
   * Rebases a run of int32 string offsets: dst[dstIndex + i] = src[srcIndex + i] - src[srcIndex] + add for i in
   * [0, count). src and dst are different buffers.
   */
  void rebaseOffsets(DeviceBuffer src, long srcIndex, long count, DeviceBuffer dst, long dstIndex, int add,
      DeviceStream stream);

  /** Arrow's 16-byte decimals (precision <= 18) to 64-bit unscaled values: dst[i] = low word of src[i]. */
  void decimal128To64(DeviceBuffer src, DeviceBuffer dst, long count, DeviceStream stream);

  /** 64-bit unscaled decimals to Arrow's 16-byte layout, sign-extended. */
  void decimal64To128(DeviceBuffer src, DeviceBuffer dst, long count, DeviceStream stream);
}
