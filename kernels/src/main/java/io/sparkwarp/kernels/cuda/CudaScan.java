package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;

/**
 * Device-wide exclusive prefix sums of int32 values, in place or as int64 sums into another array: the three
 * launches of {@code scan.cu}.
 */
final class CudaScan {
  /** Values per tile (threads times items per thread in scan.cu). */
  static final long TILE = 256 * 8;
  private static final int THREADS = 256;

  private final CudaBackend backend;
  private final CudaKernel tileSums;
  private final CudaKernel tileOffsets;
  private final CudaKernel apply;
  private final CudaKernel wideTileSums;
  private final CudaKernel wideTileOffsets;
  private final CudaKernel wideApply;

  CudaScan(CudaBackend backend, CudaModule module) {
    this.backend = backend;
    tileSums = module.kernel("sw_scan_tile_sums");
    tileOffsets = module.kernel("sw_scan_tile_offsets");
    apply = module.kernel("sw_scan_apply");
    wideTileSums = module.kernel("sw_scan_wide_tile_sums");
    wideTileOffsets = module.kernel("sw_scan_wide_tile_offsets");
    wideApply = module.kernel("sw_scan_wide_apply");
  }

  /**
   * Replaces values[i] by the sum of values[0, i) for i in [0, n]: {@code values} holds n + 1 int32 (the last one is
   * only written, with the total). The total must fit an int32.
   */
  void exclusiveSum(DeviceBuffer values, long n, DeviceStream stream) {
    values.checkRange(0, 4 * (n + 1));
    scan(values, n, values, 4, tileSums, tileOffsets, apply, stream);
  }

  /**
   * out[i] (int64) = the sum of values[0, i) (int32) for i in [0, n]: sums whose total may pass an int32. {@code
   * values} is left as it is.
   */
  void exclusiveSumWide(DeviceBuffer values, long n, DeviceBuffer out, DeviceStream stream) {
    values.checkRange(0, 4 * n);
    out.checkRange(0, 8 * (n + 1));
    scan(values, n, out, 8, wideTileSums, wideTileOffsets, wideApply, stream);
  }

  /** The three launches, with sums of {@code sumBytes} bytes each. */
  private void scan(DeviceBuffer values, long n, DeviceBuffer out, int sumBytes, CudaKernel sums, CudaKernel offsets,
      CudaKernel applyOffsets, DeviceStream stream) {
    if (n == 0) {
      backend.fill(out, 0, sumBytes, (byte) 0, stream);
      return;
    }
    long tiles = (n + TILE - 1) / TILE;
    CudaStream s = CudaStream.of(stream);
    try (DeviceBuffer tileSums = backend.allocate(sumBytes * (tiles + 1), stream)) {
      sums.launch((int) tiles, THREADS, 0, s, new KernelArgs().pointer(values).i64(n).pointer(tileSums));
      offsets.launch(1, THREADS, 0, s, new KernelArgs().pointer(tileSums).i64(tiles));
      applyOffsets.launch((int) tiles, THREADS, 0, s, new KernelArgs().pointer(values).i64(n).pointer(tileSums)
          .i64(tiles).pointer(out));
    }
  }
}
