// A stable counting sort of rows by an int32 id in [0, buckets) (Rui's radix partitioning pass): the shuffle groups
// rows by partition with it, the device sort composes its digit passes with it. The rows are cut into tiles; a
// tile's count of each id is a cell of a bucket-major matrix, whose exclusive scan (scan.cu) gives every (bucket,
// tile) its first output position, so the order within a bucket is the input order without any atomics. Two ways to
// count and scatter a tile: a block ranks up to 256 buckets in shared memory (block_grouping.cuh, shared with the
// sort's pair passes; every 8-bit digit pass, Spark's 200 partitions), and a warp per tile ranks any number of
// buckets with __match_any_sync.
// Host twin: io.sparkwarp.kernels.host.HostStableGrouping; orchestration: io.sparkwarp.kernels.cuda.CudaStableGrouping.
#include "sparkwarp/block_grouping.cuh"
#include "sparkwarp/grid.cuh"
#include "sparkwarp/warp.cuh"

using namespace sparkwarp;

namespace {

// Calls f(i, id, group_mask) for the rows [t * tile_rows, ...) of tile t, 32 at a time in order, with every lane of
// the warp converged; dead lanes get i = -1. group_mask: the lanes holding the same id.
template <typename F>
__device__ __forceinline__ void for_each_tile_step(const int32_t* ids, int64_t n, int32_t tile_rows, int64_t t, F f) {
  const int64_t begin = t * tile_rows;
  const int64_t end = begin + tile_rows < n ? begin + tile_rows : n;
  for (int64_t base = begin; base < end; base += 32) {
    const int64_t i = base + lane_id();
    const bool live = i < end;
    const int32_t p = live ? ids[i] : -1;
    const uint32_t group = __match_any_sync(FULL_WARP, p);
    f(live ? i : -1, p, group);
    __syncwarp();  // the next step reads what this one wrote
  }
}

}  // namespace

// counts[p * tiles + t] = the rows of tile t with id p (counts zeroed before): one warp per tile, no atomics.
extern "C" __global__ void sw_group_count(const int32_t* ids, int64_t n, int32_t tile_rows, int64_t tiles,
                                          int32_t* counts) {
  for_each_warp_tile(tiles, [&](int64_t t) {
    for_each_tile_step(ids, n, tile_rows, t, [&](int64_t i, int32_t p, uint32_t group) {
      if (i >= 0 && (group & lanemask_lt()) == 0) counts[p * tiles + t] += __popc(group);
    });
  });
}

// starts[p] = the first output position of bucket p: its tile-0 cell of the scanned matrix.
extern "C" __global__ void sw_group_starts(const int32_t* positions, int64_t tiles, int32_t buckets,
                                           int32_t* starts) {
  for_each_index(buckets, [&](int64_t p) { starts[p] = positions[p * tiles]; });
}

// out[positions[p * tiles + t]++] = values[i] (i itself where values is null) for the rows i of tile t in input
// order: rows grouped by id, stably. The values let a radix pass carry the order it refines.
extern "C" __global__ void sw_group_scatter(const int32_t* ids, int64_t n, int32_t tile_rows, int64_t tiles,
                                            int32_t* positions, const int32_t* values, int32_t* out) {
  for_each_warp_tile(tiles, [&](int64_t t) {
    for_each_tile_step(ids, n, tile_rows, t, [&](int64_t i, int32_t p, uint32_t group) {
      const int32_t at = i >= 0 ? positions[p * tiles + t] : 0;
      __syncwarp();  // every lane of the group has read the cell before its first lane moves it on
      if (i < 0) return;
      const uint32_t before = group & lanemask_lt();
      out[at + __popc(before)] = values != nullptr ? values[i] : static_cast<int32_t>(i);
      if (before == 0) positions[p * tiles + t] = at + __popc(group);
    });
  });
}

namespace {

using block_grouping::ITEMS;

// The block path's rows of the grouping by id, when counting: the bucket is ids[i].
struct IdSource {
  const int32_t* ids;

  using Item = block_grouping::Nothing;
  __device__ __forceinline__ void load(int64_t first, int stride, int64_t end, Item (&)[ITEMS],
                                       int32_t (&buckets)[ITEMS]) const {
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const int64_t i = first + static_cast<int64_t>(k) * stride;
      buckets[k] = i < end ? ids[i] : -1;
    }
  }
};

// And when scattering: values[i] (i itself where values is null), the payload, is loaded with the id.
struct IdValueSource {
  const int32_t* ids;
  const int32_t* values;

  using Item = int32_t;
  __device__ __forceinline__ void load(int64_t first, int stride, int64_t end, int32_t (&items)[ITEMS],
                                       int32_t (&buckets)[ITEMS]) const {
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const int64_t i = first + static_cast<int64_t>(k) * stride;
      buckets[k] = i < end ? ids[i] : -1;
      items[k] = i >= end ? 0 : values != nullptr ? values[i] : static_cast<int32_t>(i);
    }
  }
};

// What the grouping by id moves: the value loaded with the id.
struct ValuePayload {
  int32_t* out;

  static constexpr int PHASES = 1;
  static constexpr int STAGED_BYTES = 4;
  __device__ __forceinline__ bool moves(int) const { return true; }
  template <int PHASE>
  __device__ __forceinline__ int32_t value(int64_t, int32_t item) const { return item; }
  template <int PHASE>
  __device__ __forceinline__ void write(int64_t at, int32_t value) const { out[at] = value; }
};

}  // namespace

// The block path, for buckets <= block_grouping::BUCKETS: block_grouping.cuh's kernels over ids and int32 values.
static_assert(sizeof(block_grouping::CountShared) == 1024, "CudaStableGrouping.COUNT_SHARED_BYTES");
static_assert(sizeof(block_grouping::ScatterShared<ValuePayload::STAGED_BYTES>) == 37920,
              "CudaStableGrouping.SCATTER_SHARED_BYTES");

// counts[p * tiles + t] = the rows of tile t with id p < buckets: one block of block_grouping::THREADS per tile,
// every cell written (no zeroing before).
extern "C" __global__ void __launch_bounds__(block_grouping::THREADS)
    sw_group_block_count(const int32_t* ids, int64_t n, int32_t tile_rows, int64_t tiles, int32_t buckets,
                         int32_t* counts) {
  block_grouping::block_count(IdSource{ids}, n, tile_rows, tiles, buckets, counts);
}

// out[positions[p * tiles + t] + (rank of row i among tile t's rows of id p)] = values[i] (i itself where values is
// null); positions (the scanned counts) stay as they are. Blocks of block_grouping::THREADS; 4 of them an SM (at most
// 64 registers, no spills) keep enough loads in flight while others sit at a barrier.
extern "C" __global__ void __launch_bounds__(block_grouping::THREADS, 4)
    sw_group_block_scatter(const int32_t* ids, int64_t n, int32_t tile_rows, int64_t tiles, int32_t buckets,
                           const int32_t* positions, const int32_t* values, int32_t* out) {
  block_grouping::block_scatter(IdValueSource{ids, values}, ValuePayload{out}, n, tile_rows, tiles, buckets, positions);
}
