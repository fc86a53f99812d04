package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.primitives.BatchPrimitives;

/** {@link BatchPrimitives} as launches of the kernels in {@code batch.cu}. */
final class CudaBatchPrimitives implements BatchPrimitives {
  private final CudaKernel copyBits;
  private final CudaKernel fillBits;
  private final CudaKernel rebaseOffsets;
  private final CudaKernel decimal128To64;
  private final CudaKernel decimal64To128;

  CudaBatchPrimitives(CudaModule module) {
    copyBits = module.kernel("sw_copy_bits");
    fillBits = module.kernel("sw_fill_bits");
    rebaseOffsets = module.kernel("sw_rebase_offsets");
    decimal128To64 = module.kernel("sw_decimal128_to_64");
    decimal64To128 = module.kernel("sw_decimal64_to_128");
  }

  @Override
  public void copyBits(DeviceBuffer src, long srcBit, DeviceBuffer dst, long dstBit, long nbits,
      DeviceStream stream) {
    if (nbits == 0) return;
    src.checkRange(0, (srcBit + nbits + 7) / 8);
    dst.checkRange(0, (dstBit + nbits + 7) / 8);
    copyBits.launchGridStride(nbits / 32 + 2, CudaStream.of(stream),
        new KernelArgs().pointer(src).i64(srcBit).pointer(dst).i64(dstBit).i64(nbits));
  }

  @Override
  public void fillBits(DeviceBuffer dst, long dstBit, long nbits, boolean value, DeviceStream stream) {
    if (nbits == 0) return;
    dst.checkRange(0, (dstBit + nbits + 7) / 8);
    fillBits.launchGridStride(nbits / 32 + 2, CudaStream.of(stream),
        new KernelArgs().pointer(dst).i64(dstBit).i64(nbits).i32(value ? 1 : 0));
  }

  @Override
  public void rebaseOffsets(DeviceBuffer src, long srcIndex, long count, DeviceBuffer dst, long dstIndex, int add,
      DeviceStream stream) {
    if (count == 0) return;
    src.checkRange(4 * srcIndex, 4 * count);
    dst.checkRange(4 * dstIndex, 4 * count);
    rebaseOffsets.launchGridStride(count, CudaStream.of(stream),
        new KernelArgs().pointer(src, 4 * srcIndex).i64(count).pointer(dst, 4 * dstIndex).i32(add));
  }

  @Override
  public void decimal128To64(DeviceBuffer src, DeviceBuffer dst, long count, DeviceStream stream) {
    if (count == 0) return;
    src.checkRange(0, 16 * count);
    dst.checkRange(0, 8 * count);
    decimal128To64.launchGridStride(count, CudaStream.of(stream), new KernelArgs().pointer(src).pointer(dst).i64(count));
  }

  @Override
  public void decimal64To128(DeviceBuffer src, DeviceBuffer dst, long count, DeviceStream stream) {
    if (count == 0) return;
    src.checkRange(0, 8 * count);
    dst.checkRange(0, 16 * count);
    decimal64To128.launchGridStride(count, CudaStream.of(stream), new KernelArgs().pointer(src).pointer(dst).i64(count));
  }
}
