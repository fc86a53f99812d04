// Device-wide exclusive prefix sums of int32 values in three launches over tiles of SCAN_TILE values: tile sums, one
// block scanning the tile sums (with a running carry), and each tile scanned again plus its offset. The tile
// partition is the same in all three. Two flavours share the code: int32 sums in place, and int64 sums of int32
// values into a separate array (join outputs whose total may pass 2^31). Host side: io.sparkwarp.kernels.cuda.CudaScan.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

namespace {

constexpr int SCAN_THREADS = 256;
constexpr int SCAN_ITEMS = 8;
constexpr int64_t SCAN_TILE = SCAN_THREADS * SCAN_ITEMS;  // io.sparkwarp.kernels.cuda.CudaScan.TILE

// This thread's SCAN_ITEMS consecutive values of [base, n) (zero past n), the blocked arrangement BlockScan takes.
template <typename In, typename Out>
__device__ __forceinline__ void load_items(const In* values, int64_t base, int64_t n, Out (&items)[SCAN_ITEMS]) {
#pragma unroll
  for (int k = 0; k < SCAN_ITEMS; k++) items[k] = base + k < n ? static_cast<Out>(values[base + k]) : Out(0);
}

// tile_sums[b] = the sum of values in tile b. One block per tile; reads are striped across the block (coalesced).
template <typename In, typename Out>
__device__ __forceinline__ void scan_tile_sums(const In* values, int64_t n, Out* tile_sums) {
  using BlockSum = cub::BlockReduce<Out, SCAN_THREADS>;
  __shared__ typename BlockSum::TempStorage temp;
  const int64_t base = static_cast<int64_t>(blockIdx.x) * SCAN_TILE;
  Out sum = 0;
#pragma unroll
  for (int k = 0; k < SCAN_ITEMS; k++) {
    const int64_t i = base + k * SCAN_THREADS + threadIdx.x;
    if (i < n) sum += static_cast<Out>(values[i]);
  }
  const Out total = BlockSum(temp).Sum(sum);
  if (threadIdx.x == 0) tile_sums[blockIdx.x] = total;
}

// One block: tile_sums[0, tiles) becomes its exclusive prefix sum in place, and tile_sums[tiles] the total.
template <typename Out>
__device__ __forceinline__ void scan_tile_offsets(Out* tile_sums, int64_t tiles) {
  using BlockPrefix = cub::BlockScan<Out, SCAN_THREADS>;
  __shared__ typename BlockPrefix::TempStorage temp;
  Out carry = 0;
  for (int64_t chunk = 0; chunk < tiles; chunk += SCAN_TILE) {
    const int64_t base = chunk + static_cast<int64_t>(threadIdx.x) * SCAN_ITEMS;
    Out items[SCAN_ITEMS];
    load_items(tile_sums, base, tiles, items);
    Out chunk_total;
    BlockPrefix(temp).ExclusiveSum(items, items, chunk_total);
#pragma unroll
    for (int k = 0; k < SCAN_ITEMS; k++) {
      if (base + k < tiles) tile_sums[base + k] = carry + items[k];
    }
    carry += chunk_total;
    __syncthreads();  // temp is reused by the next chunk
  }
  if (threadIdx.x == 0) tile_sums[tiles] = carry;
}

// out[i] = tile_offsets[tile of i] + the exclusive prefix of i within its tile, and out[n] = the total. `out` may be
// `values` (each block reads its tile into registers before writing it back).
template <typename In, typename Out>
__device__ __forceinline__ void scan_apply(const In* values, int64_t n, const Out* tile_offsets, int64_t tiles,
                                           Out* out) {
  using BlockPrefix = cub::BlockScan<Out, SCAN_THREADS>;
  __shared__ typename BlockPrefix::TempStorage temp;
  const int64_t base = static_cast<int64_t>(blockIdx.x) * SCAN_TILE + static_cast<int64_t>(threadIdx.x) * SCAN_ITEMS;
  Out items[SCAN_ITEMS];
  load_items(values, base, n, items);
  BlockPrefix(temp).ExclusiveSum(items, items);
  const Out offset = tile_offsets[blockIdx.x];
#pragma unroll
  for (int k = 0; k < SCAN_ITEMS; k++) {
    if (base + k < n) out[base + k] = offset + items[k];
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) out[n] = tile_offsets[tiles];
}

}  // namespace

// int32 sums of int32 values into out[0, n] (out may be values, which then holds n + 1).
extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
    sw_scan_tile_sums(const int32_t* values, int64_t n, int32_t* tile_sums) {
  scan_tile_sums(values, n, tile_sums);
}

extern "C" __global__ void __launch_bounds__(SCAN_THREADS) sw_scan_tile_offsets(int32_t* tile_sums, int64_t tiles) {
  scan_tile_offsets(tile_sums, tiles);
}

extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
    sw_scan_apply(const int32_t* values, int64_t n, const int32_t* tile_offsets, int64_t tiles, int32_t* out) {
  scan_apply(values, n, tile_offsets, tiles, out);
}

// int64 sums of int32 values into out[0, n]: the same three steps with 64-bit sums.
extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
    sw_scan_wide_tile_sums(const int32_t* values, int64_t n, int64_t* tile_sums) {
  scan_tile_sums(values, n, tile_sums);
}

extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
    sw_scan_wide_tile_offsets(int64_t* tile_sums, int64_t tiles) {
  scan_tile_offsets(tile_sums, tiles);
}

extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
    sw_scan_wide_apply(const int32_t* values, int64_t n, const int64_t* tile_offsets, int64_t tiles, int64_t* out) {
  scan_apply(values, n, tile_offsets, tiles, out);
}
