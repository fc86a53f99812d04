package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;

/**
 * The stable counting sort of rows by an int32 id, as launches of {@code grouping.cu} and the scan of
 * {@code scan.cu}: the shuffle's grouping by partition and every digit pass of the device sort.
 */
final class CudaStableGrouping {
  /** Rows a warp groups per tile: long enough that the count matrix stays small, short enough for many warps. */
  private static final int TILE_ROWS = 1024;
  /** The most cells of the (bucket x tile) count matrix: 64 MiB of int32; more buckets get longer tiles. */
  private static final long MAX_CELLS = 1L << 24;

  private final CudaBackend backend;
  private final CudaScan scan;
  private final CudaKernel count;
  private final CudaKernel starts;
  private final CudaKernel scatter;

  CudaStableGrouping(CudaBackend backend, CudaModule module) {
    this.backend = backend;
    this.scan = new CudaScan(backend, module);
    count = module.kernel("sw_group_count");
    starts = module.kernel("sw_group_starts");
    scatter = module.kernel("sw_group_scatter");
  }

  /**
   * Writes into out[0, rows) values[i] (i itself where {@code values} is null) for the rows i grouped by ids[i] in
   * [0, buckets), in input order within a bucket; with {@code bucketStarts} not null, bucketStarts[b] (int32) becomes
   * the first position of bucket b. Asynchronous; the arguments are checked by the caller, rows above 0.
   */
  void group(DeviceBuffer ids, int rows, int buckets, DeviceBuffer values, DeviceBuffer out, DeviceBuffer bucketStarts,
      DeviceStream stream) {
    // as many tiles as the matrix allows, each a whole number of warp steps
    long tiles = Math.max(1, Math.min((rows + TILE_ROWS - 1) / TILE_ROWS, MAX_CELLS / buckets));
    int tileRows = (int) (((rows + tiles - 1) / tiles + 31) / 32 * 32);
    tiles = (rows + tileRows - 1) / tileRows;
    long cells = tiles * buckets;
    CudaStream s = CudaStream.of(stream);
    try (DeviceBuffer positions = backend.allocate(4L * (cells + 1), stream)) {
      backend.fill(positions, 0, 4L * cells, (byte) 0, stream);
      count.launchGridStride(32 * tiles, s, new KernelArgs().pointer(ids).i64(rows).i32(tileRows).i64(tiles)
          .pointer(positions));
      scan.exclusiveSum(positions, cells, stream);
      if (bucketStarts != null) {
        starts.launchGridStride(buckets, s, new KernelArgs().pointer(positions).i64(tiles).i32(buckets)
            .pointer(bucketStarts));
      }
      KernelArgs args = new KernelArgs().pointer(ids).i64(rows).i32(tileRows).i64(tiles).pointer(positions);
      (values == null ? args.address(0) : args.pointer(values)).pointer(out);
      scatter.launchGridStride(32 * tiles, s, args);
    }
  }
}
