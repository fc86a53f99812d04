package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;

/**
 * The stable counting sort of rows by an int32 id, as launches of {@code grouping.cu} and the scan of
 * {@code scan.cu}: the shuffle's grouping by partition and every digit pass of the device sort. Up to
 * {@link #BLOCK_BUCKETS} buckets a block ranks each tile in shared memory (block_grouping.cuh, whose ranking the
 * sort's pair passes share: {@link CudaSortPrimitives}); more buckets take a warp per tile.
 */
final class CudaStableGrouping {
  /** Rows a warp groups per tile: long enough that the count matrix stays small, short enough for many warps. */
  private static final int TILE_ROWS = 1024;
  /** The most cells of the (bucket x tile) count matrix: 64 MiB of int32; more buckets get longer tiles. */
  private static final long MAX_CELLS = 1L << 24;
  /** The most buckets of the block path: one a thread (block_grouping.cuh's BUCKETS). */
  private static final int BLOCK_BUCKETS = 256;
  /** Threads of a block-path block (block_grouping::THREADS). */
  private static final int BLOCK_THREADS = 256;
  /** Rows a block ranks at once (block_grouping::CHUNK); a block-path tile is a whole number of chunks. */
  private static final int CHUNK_ROWS = 4096;
  /**
   * Dynamic shared memory of the block kernels: sizeof block_grouping::CountShared, and ScatterShared of grouping.cu's
   * int32 values (staged 4 bytes a row).
   */
  private static final int COUNT_SHARED_BYTES = 1024;
  private static final int SCATTER_SHARED_BYTES = 37920;

  private final CudaBackend backend;
  private final CudaScan scan;
  private final CudaKernel count;
  private final CudaKernel starts;
  private final CudaKernel scatter;
  private final CudaKernel blockCount;
  private final CudaKernel blockScatter;

  CudaStableGrouping(CudaBackend backend, CudaModule module) {
    this.backend = backend;
    this.scan = new CudaScan(backend, module);
    count = module.kernel("sw_group_count");
    starts = module.kernel("sw_group_starts");
    scatter = module.kernel("sw_group_scatter");
    blockCount = module.kernel("sw_group_block_count");
    blockScatter = module.kernel("sw_group_block_scatter");
  }

  /**
   * Writes into out[0, rows) values[i] (i itself where {@code values} is null) for the rows i grouped by ids[i] in
   * [0, buckets), in input order within a bucket; with {@code bucketStarts} not null, bucketStarts[b] (int32) becomes
   * the first position of bucket b. Asynchronous; the arguments are checked by the caller, rows above 0.
   */
  void group(DeviceBuffer ids, int rows, int buckets, DeviceBuffer values, DeviceBuffer out, DeviceBuffer bucketStarts,
      DeviceStream stream) {
    if (buckets <= BLOCK_BUCKETS) {
      groupBlocks(ids, rows, buckets, values, out, bucketStarts, stream);
      return;
    }
    long tiles = tiles(rows, buckets, TILE_ROWS);
    int tileRows = tileRows(rows, tiles, 32);
    tiles = (rows + tileRows - 1L) / tileRows;
    long cells = tiles * buckets;
    CudaStream s = CudaStream.of(stream);
    try (DeviceBuffer positions = backend.allocate(4L * (cells + 1), stream)) {
      backend.fill(positions, 0, 4L * cells, (byte) 0, stream);
      count.launchGridStride(32 * tiles, s, tileArgs(ids, rows, tileRows, tiles).pointer(positions));
      scan.exclusiveSum(positions, cells, stream);
      starts(positions, tiles, buckets, bucketStarts, s);
      KernelArgs args = tileArgs(ids, rows, tileRows, tiles).pointer(positions);
      (values == null ? args.address(0) : args.pointer(values)).pointer(out);
      scatter.launchGridStride(32 * tiles, s, args);
    }
  }

  /** {@link #group} by the block path: up to {@link #BLOCK_BUCKETS} buckets, a block a tile of whole chunks. */
  private void groupBlocks(DeviceBuffer ids, int rows, int buckets, DeviceBuffer values, DeviceBuffer out,
      DeviceBuffer bucketStarts, DeviceStream stream) {
    long tiles = tiles(rows, buckets, CHUNK_ROWS);
    int tileRows = tileRows(rows, tiles, CHUNK_ROWS);
    tiles = (rows + tileRows - 1L) / tileRows;
    long cells = tiles * buckets;
    CudaStream s = CudaStream.of(stream);
    try (DeviceBuffer positions = backend.allocate(4L * (cells + 1), stream)) {
      // one block per tile; it writes every cell of its tile, so the matrix needs no zeroing
      blockCount.launch((int) tiles, BLOCK_THREADS, COUNT_SHARED_BYTES, s,
          tileArgs(ids, rows, tileRows, tiles).i32(buckets).pointer(positions));
      scan.exclusiveSum(positions, cells, stream);
      starts(positions, tiles, buckets, bucketStarts, s);
      KernelArgs args = tileArgs(ids, rows, tileRows, tiles).i32(buckets).pointer(positions);
      (values == null ? args.address(0) : args.pointer(values)).pointer(out);
      blockScatter.launch((int) tiles, BLOCK_THREADS, SCATTER_SHARED_BYTES, s, args);
    }
  }

  /** Tiles of about {@code preferred} rows, or as many as the matrix allows. */
  private static long tiles(int rows, int buckets, int preferred) {
    return Math.max(1, Math.min((rows + preferred - 1L) / preferred, MAX_CELLS / buckets));
  }

  /** Rows of each of {@code tiles} tiles, a whole number of units (block chunks, or warp steps). */
  private static int tileRows(int rows, long tiles, int unit) {
    return (int) Math.min(Integer.MAX_VALUE / unit * unit, ((rows + tiles - 1) / tiles + unit - 1) / unit * unit);
  }

  /** bucketStarts[b] = the first position of bucket b, unless bucketStarts is null. */
  private void starts(DeviceBuffer positions, long tiles, int buckets, DeviceBuffer bucketStarts, CudaStream s) {
    if (bucketStarts != null) {
      starts.launchGridStride(buckets, s, new KernelArgs().pointer(positions).i64(tiles).i32(buckets)
          .pointer(bucketStarts));
    }
  }

  /** The (ids, rows, tile rows, tiles) arguments every count and scatter kernel starts with. */
  private static KernelArgs tileArgs(DeviceBuffer ids, int rows, int tileRows, long tiles) {
    return new KernelArgs().pointer(ids).i64(rows).i32(tileRows).i64(tiles);
  }
}
