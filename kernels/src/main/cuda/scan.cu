// Device-wide exclusive prefix sum of int32 values, in place, in three launches over tiles of SCAN_TILE values:
// tile sums, one block scanning the tile sums (with a running carry), and each tile scanned again plus its offset.
// The tile partition is the same in all three. Host side: io.sparkwarp.kernels.cuda.CudaScan.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

namespace {

constexpr int SCAN_THREADS = 256;
constexpr int SCAN_ITEMS = 8;
constexpr int64_t SCAN_TILE = SCAN_THREADS * SCAN_ITEMS;  // io.sparkwarp.kernels.cuda.CudaScan.TILE

using BlockSum = cub::BlockReduce<int32_t, SCAN_THREADS>;
using BlockPrefix = cub::BlockScan<int32_t, SCAN_THREADS>;

// This thread's SCAN_ITEMS consecutive values of [base, n) (zero past n), the blocked arrangement BlockScan takes.
__device__ __forceinline__ void load_items(const int32_t* values, int64_t base, int64_t n,
                                           int32_t (&items)[SCAN_ITEMS]) {
#pragma unroll
  for (int k = 0; k < SCAN_ITEMS; k++) items[k] = base + k < n ? values[base + k] : 0;
}

}  // namespace

// tile_sums[b] = the sum of values in tile b. One block per tile; reads are striped across the block (coalesced).
extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
    sw_scan_tile_sums(const int32_t* values, int64_t n, int32_t* tile_sums) {
  __shared__ typename BlockSum::TempStorage temp;
  const int64_t base = static_cast<int64_t>(blockIdx.x) * SCAN_TILE;
  int32_t sum = 0;
#pragma unroll
  for (int k = 0; k < SCAN_ITEMS; k++) {
    const int64_t i = base + k * SCAN_THREADS + threadIdx.x;
    if (i < n) sum += values[i];
  }
  const int32_t total = BlockSum(temp).Sum(sum);
  if (threadIdx.x == 0) tile_sums[blockIdx.x] = total;
}

// One block: tile_sums[0, tiles) becomes its exclusive prefix sum in place, and tile_sums[tiles] the total.
extern "C" __global__ void __launch_bounds__(SCAN_THREADS) sw_scan_tile_offsets(int32_t* tile_sums, int64_t tiles) {
  __shared__ typename BlockPrefix::TempStorage temp;
  int32_t carry = 0;
  for (int64_t chunk = 0; chunk < tiles; chunk += SCAN_TILE) {
    const int64_t base = chunk + static_cast<int64_t>(threadIdx.x) * SCAN_ITEMS;
    int32_t items[SCAN_ITEMS];
    load_items(tile_sums, base, tiles, items);
    int32_t chunk_total;
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

// values[i] = tile_offsets[tile of i] + the exclusive prefix of i within its tile, in place (each block reads its
// tile into registers before writing it back); values[n] = the total.
extern "C" __global__ void __launch_bounds__(SCAN_THREADS)
    sw_scan_apply(int32_t* values, int64_t n, const int32_t* tile_offsets, int64_t tiles) {
  __shared__ typename BlockPrefix::TempStorage temp;
  const int64_t base = static_cast<int64_t>(blockIdx.x) * SCAN_TILE + static_cast<int64_t>(threadIdx.x) * SCAN_ITEMS;
  int32_t items[SCAN_ITEMS];
  load_items(values, base, n, items);
  BlockPrefix(temp).ExclusiveSum(items, items);
  const int32_t offset = tile_offsets[blockIdx.x];
#pragma unroll
  for (int k = 0; k < SCAN_ITEMS; k++) {
    if (base + k < n) values[base + k] = offset + items[k];
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) values[n] = tile_offsets[tiles];
}
