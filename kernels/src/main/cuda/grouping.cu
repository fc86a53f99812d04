// A stable counting sort of rows by an int32 id in [0, buckets) (Rui's radix partitioning pass): the shuffle groups
// rows by partition with it, the device sort composes its digit passes with it. The rows are cut into tiles; a
// tile's count of each id is a cell of a bucket-major matrix, whose exclusive scan (scan.cu) gives every (bucket,
// tile) its first output position, so the order within a bucket is the input order without any atomics. Two ways to
// count and scatter a tile: a block of GROUP_THREADS ranks up to GROUP_BUCKETS buckets in shared memory (every
// 8-bit digit pass, Spark's 200 partitions), and a warp per tile ranks any number of buckets with __match_any_sync.
// Host twin: io.sparkwarp.kernels.host.HostStableGrouping; orchestration: io.sparkwarp.kernels.cuda.CudaStableGrouping.
#include "sparkwarp/block_scan.cuh"
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

// The block path: shared memory of the block kernels, a GroupCountShared or a GroupScatterShared (their sizes are
// CudaStableGrouping's COUNT_SHARED_BYTES and SCATTER_SHARED_BYTES).
extern __shared__ uint4 sw_group_shared[];

namespace {

constexpr int GROUP_THREADS = 256;  // io.sparkwarp.kernels.cuda.CudaStableGrouping.BLOCK_THREADS
constexpr int GROUP_WARPS = GROUP_THREADS / 32;
// Rows a thread holds: 16 loads in flight a thread hide the memory latency at 4 blocks an SM, and the counts of a
// 4096-row chunk (the matrix, scanned three times) weigh 1/16 of the ids at 256 buckets.
constexpr int GROUP_ITEMS = 16;
constexpr int GROUP_WARP_ROWS = 32 * GROUP_ITEMS;
// Rows a block ranks at once; a tile of the block path is a whole number of chunks.
constexpr int GROUP_CHUNK = GROUP_THREADS * GROUP_ITEMS;  // CudaStableGrouping.CHUNK_ROWS
// Thread b keeps the books of bucket b.
constexpr int GROUP_BUCKETS = GROUP_THREADS;  // CudaStableGrouping.BLOCK_BUCKETS

struct GroupCountShared {
  int32_t counts[GROUP_BUCKETS];  // the tile's rows of each bucket
};

struct GroupScatterShared {
  // warp w's rows of bucket b in the chunk while it ranks them, then the chunk rank of its first one
  int32_t warp_counts[GROUP_WARPS][GROUP_BUCKETS];
  int32_t shift[GROUP_BUCKETS];  // output position minus chunk rank of bucket b's rows
  int32_t warp_sums[GROUP_WARPS];
  int32_t staged[GROUP_CHUNK];          // the chunk's values in grouped order
  uint8_t staged_buckets[GROUP_CHUNK];  // and their buckets
};
static_assert(sizeof(GroupCountShared) == 1024, "CudaStableGrouping.COUNT_SHARED_BYTES");
static_assert(sizeof(GroupScatterShared) == 29728, "CudaStableGrouping.SCATTER_SHARED_BYTES");
static_assert(GROUP_BUCKETS <= 256, "staged_buckets holds a bucket in a byte, and the match takes 8 bits");

template <typename S>
__device__ __forceinline__ S& group_shared() {
  return *reinterpret_cast<S*>(sw_group_shared);
}

// Calls f(chunk, end) for the chunks [chunk, end) of tile t of tile_rows rows (a multiple of GROUP_CHUNK).
template <typename F>
__device__ __forceinline__ void for_each_chunk(int64_t n, int32_t tile_rows, int64_t t, F f) {
  const int64_t begin = t * tile_rows;
  const int64_t end = begin + tile_rows < n ? begin + tile_rows : n;
  for (int64_t chunk = begin; chunk < end; chunk += GROUP_CHUNK) {
    f(chunk, chunk + GROUP_CHUNK < end ? chunk + GROUP_CHUNK : end);
  }
}

}  // namespace

// counts[p * tiles + t] = the rows of tile t with id p < buckets <= GROUP_BUCKETS: one block per tile, shared
// atomics (the order of counting does not matter), every cell written (no zeroing before). Blocks of GROUP_THREADS.
extern "C" __global__ void __launch_bounds__(GROUP_THREADS)
    sw_group_block_count(const int32_t* ids, int64_t n, int32_t tile_rows, int64_t tiles, int32_t buckets,
                         int32_t* counts) {
  GroupCountShared& s = group_shared<GroupCountShared>();
  for_each_block_tile(tiles, [&](int64_t t) {
    // thread b reads and zeroes only counts[b], and nobody adds before the barrier below
    s.counts[threadIdx.x] = 0;
    __syncthreads();
    for_each_chunk(n, tile_rows, t, [&](int64_t chunk, int64_t end) {
      int32_t p[GROUP_ITEMS];
#pragma unroll
      for (int k = 0; k < GROUP_ITEMS; k++) {  // striped: each load of a warp is 128 consecutive bytes
        const int64_t i = chunk + k * GROUP_THREADS + threadIdx.x;
        p[k] = i < end ? ids[i] : -1;
      }
      // rows from the warp's first of step 0 to the end (at most a chunk)
      const int32_t warp_left = static_cast<int32_t>(end - chunk) - static_cast<int32_t>(threadIdx.x & ~31u);
#pragma unroll
      for (int k = 0; k < GROUP_ITEMS; k++) {
        if (k * GROUP_THREADS >= warp_left) break;  // the rest of the warp's rows are past the end
        // a warp of one id (skew, sorted input) adds once instead of 32 colliding atomics
        const int32_t first = __shfl_sync(FULL_WARP, p[k], 0);
        if (__all_sync(FULL_WARP, p[k] == first)) {
          if (lane_id() == 0 && first >= 0) atomicAdd(&s.counts[first], 32);
        } else if (p[k] >= 0) {
          atomicAdd(&s.counts[p[k]], 1);
        }
      }
    });
    __syncthreads();
    if (static_cast<int32_t>(threadIdx.x) < buckets) counts[threadIdx.x * tiles + t] = s.counts[threadIdx.x];
  });
}

// out[positions[p * tiles + t] + (rank of row i among tile t's rows of id p)] = values[i] (i itself where values is
// null), for buckets <= GROUP_BUCKETS; positions (the scanned counts) stay as they are. A block ranks a chunk of
// GROUP_CHUNK rows in shared memory: warp w holds rows w * GROUP_WARP_ROWS + 32k + lane, so (warp, k, lane) is the
// input order, each warp ranks its rows k by k in its own counts (stable), and a scan over (bucket, warp) turns
// those counts into chunk ranks. The chunk is staged in shared memory in grouped order, then written out with
// consecutive threads at consecutive positions of a bucket. Blocks of GROUP_THREADS; 4 of them an SM (at most 64
// registers, no spills) keep enough loads in flight while others sit at a barrier.
extern "C" __global__ void __launch_bounds__(GROUP_THREADS, 4)
    sw_group_block_scatter(const int32_t* ids, int64_t n, int32_t tile_rows, int64_t tiles, int32_t buckets,
                           const int32_t* positions, const int32_t* values, int32_t* out) {
  GroupScatterShared& s = group_shared<GroupScatterShared>();
  const int warp = static_cast<int>(threadIdx.x >> 5);
  const int bucket = static_cast<int>(threadIdx.x);
  int bits = 0;  // the id bits that tell the buckets apart
  while ((1 << bits) < buckets) bits++;
  for_each_block_tile(tiles, [&](int64_t t) {
    // the next output position of this thread's bucket in tile t
    int32_t next = bucket < buckets ? positions[bucket * tiles + t] : 0;
    for_each_chunk(n, tile_rows, t, [&](int64_t chunk, int64_t end) {
      const int64_t warp_row = chunk + warp * GROUP_WARP_ROWS;  // the warp's first row
      const int32_t warp_left = static_cast<int32_t>(end - warp_row);  // may be below 0
      int32_t p[GROUP_ITEMS], v[GROUP_ITEMS];
#pragma unroll
      for (int k = 0; k < GROUP_ITEMS; k++) {  // every load of a warp is 128 consecutive bytes
        const int64_t i = warp_row + 32 * k + lane_id();
        p[k] = i < end ? ids[i] : -1;
        v[k] = i >= end ? 0 : values != nullptr ? values[i] : static_cast<int32_t>(i);
      }
      // rank: this warp's counts are its own (the previous chunk's readers of them were this warp's lanes)
      int32_t* counts = s.warp_counts[warp];
#pragma unroll
      for (int j = 0; j < GROUP_BUCKETS / 32; j++) counts[32 * j + lane_id()] = 0;
      __syncwarp();
#pragma unroll
      for (int k = 0; k < GROUP_ITEMS; k++) {
        if (32 * k >= warp_left) break;  // the rest of the warp's rows are past the end (p = -1)
        const bool live = p[k] >= 0;
        const uint32_t label = live ? static_cast<uint32_t>(p[k]) : 0u;
        const uint32_t peers = warp_match_low_bits(label, bits) & __ballot_sync(FULL_WARP, live);
        const uint32_t below = peers & lanemask_lt();
        // the lowest lane of each id moves its count on; its peers take the count before
        int32_t seen = 0;
        if (live && below == 0) {
          seen = counts[label];
          counts[label] = seen + __popc(peers);
        }
        seen = __shfl_sync(FULL_WARP, seen, __ffs(static_cast<int>(peers)) - 1);
        p[k] = live ? ((seen + __popc(below)) << 8 | static_cast<int32_t>(label)) : -1;
        __syncwarp();  // the next step's lowest lane reads what this one wrote
      }
      __syncthreads();
      // bucket b: the chunk rank of each warp's first row of it, and where its rows go
      int32_t in_warp[GROUP_WARPS], total = 0;
#pragma unroll
      for (int w = 0; w < GROUP_WARPS; w++) {
        in_warp[w] = s.warp_counts[w][bucket];
        total += in_warp[w];
      }
      const int32_t bucket_first = block_exclusive_sum(total, s.warp_sums);
      int32_t rank = bucket_first;
#pragma unroll
      for (int w = 0; w < GROUP_WARPS; w++) {
        s.warp_counts[w][bucket] = rank;
        rank += in_warp[w];
      }
      s.shift[bucket] = next - bucket_first;
      next += total;
      __syncthreads();
#pragma unroll
      for (int k = 0; k < GROUP_ITEMS; k++) {
        if (p[k] < 0) continue;
        const int32_t b = p[k] & 0xff;
        const int32_t r = counts[b] + (p[k] >> 8);
        s.staged[r] = v[k];
        s.staged_buckets[r] = static_cast<uint8_t>(b);
      }
      __syncthreads();
      // written by the next chunk only after the barriers of its ranking, which these reads come before
      const int32_t rows = static_cast<int32_t>(end - chunk);
#pragma unroll
      for (int k = 0; k < GROUP_ITEMS; k++) {
        const int32_t r = k * GROUP_THREADS + static_cast<int32_t>(threadIdx.x);
        if (r < rows) out[static_cast<int64_t>(s.shift[s.staged_buckets[r]]) + r] = s.staged[r];
      }
    });
  });
}
