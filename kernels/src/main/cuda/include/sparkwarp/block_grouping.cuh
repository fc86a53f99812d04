// The block path of the stable grouping (grouping.cu's Rui radix partitioning pass, for up to 256 buckets), written
// once over two policies so that every caller shares the same ranking: a Source tells where a row's bucket comes
// from (an int32 id, a digit of a word, a digit of the sort keys packed on the fly) and a Payload what moves to the
// row's output position (an int32 value or the row's index; a (word, row id) pair of the sort's pair passes). The
// rows are cut into tiles of whole chunks; block_count writes each tile's count of each bucket into a bucket-major
// matrix, whose exclusive scan (scan.cu) gives every (bucket, tile) its first output position; block_scatter ranks
// each chunk in shared memory and writes the payload out staged in grouped order (scatter_chunk, which onesweep.cuh's
// single-kernel passes share). Entry points: grouping.cu (sw_group_block_*), sort.cu (sw_sort_pairs*, through
// onesweep.cuh); launches: io.sparkwarp.kernels.cuda.CudaStableGrouping, CudaSortPrimitives.
//
// A Source has: a type Item (what a thread holds of a row while ranking it: whatever of the payload is loaded with
// the bucket); and load(first, stride, end, items, buckets), which fills items[k] and buckets[k] (in [0, buckets))
// for the rows first + k * stride below end, buckets[k] = -1 for the others, all loads of a thread in flight
// together.
// A Payload has: PHASES, the values a row moves, each staged through shared memory in turn; STAGED_BYTES, the largest
// of them; moves(phase), uniform, false for a phase with nothing to write; value<PHASE>(i, item), the value phase
// PHASE moves of row i; and write<PHASE>(at, value), which writes it at output position at.
#pragma once
#include <cstdint>

#include "sparkwarp/block_scan.cuh"
#include "sparkwarp/grid.cuh"
#include "sparkwarp/warp.cuh"

// The shared memory of the block kernels, a block_grouping::CountShared or ScatterShared: dynamic, so that one
// declaration serves every instantiation (their sizes are CudaStableGrouping's *_SHARED_BYTES).
extern __shared__ uint4 sw_group_shared[];

namespace sparkwarp {
namespace block_grouping {

constexpr int THREADS = 256;  // io.sparkwarp.kernels.cuda.CudaStableGrouping.BLOCK_THREADS
constexpr int WARPS = THREADS / 32;
// Rows a thread holds: 16 loads in flight a thread hide the memory latency at 4 blocks an SM, and the counts of a
// 4096-row chunk (the matrix, scanned three times) weigh 1/16 of the ids at 256 buckets.
constexpr int ITEMS = 16;
constexpr int WARP_ROWS = 32 * ITEMS;
// Rows a block ranks at once; a tile of the block path is a whole number of chunks.
constexpr int CHUNK = THREADS * ITEMS;  // CudaStableGrouping.CHUNK_ROWS
// Thread b keeps the books of bucket b.
constexpr int BUCKETS = THREADS;  // CudaStableGrouping.BLOCK_BUCKETS
static_assert(BUCKETS <= 256, "staged_buckets holds a bucket in a byte, and the match takes 8 bits");

// The Item of a Source that loads nothing but the buckets.
struct Nothing {};

struct CountShared {
  int32_t counts[BUCKETS];  // the tile's rows of each bucket
};

template <int STAGED_BYTES>
struct ScatterShared {
  // warp w's rows of bucket b in the chunk while it ranks them, then the chunk rank of its first one
  int32_t warp_counts[WARPS][BUCKETS];
  uint32_t warp_match[WARPS][BUCKETS];  // while warp w ranks a step: its lanes of bucket b, a bit each, else 0
  int32_t shift[BUCKETS];  // output position minus chunk rank of bucket b's rows
  int32_t warp_sums[WARPS];
  alignas(8) uint8_t staged[CHUNK * STAGED_BYTES];  // the chunk's values of one phase in grouped order
  uint8_t staged_buckets[CHUNK];                    // and their buckets
};

template <typename S>
__device__ __forceinline__ S& shared() {
  return *reinterpret_cast<S*>(sw_group_shared);
}

// Calls f(chunk, end) for the chunks [chunk, end) of tile t of tile_rows rows (a multiple of CHUNK).
template <typename F>
__device__ __forceinline__ void for_each_chunk(int64_t n, int32_t tile_rows, int64_t t, F f) {
  const int64_t begin = t * tile_rows;
  const int64_t end = begin + tile_rows < n ? begin + tile_rows : n;
  for (int64_t chunk = begin; chunk < end; chunk += CHUNK) {
    f(chunk, chunk + CHUNK < end ? chunk + CHUNK : end);
  }
}

// counts[p * tiles + t] = the rows of tile t with bucket p < buckets <= BUCKETS: one block per tile, shared atomics
// (the order of counting does not matter), every cell written (no zeroing before). Blocks of THREADS.
template <typename Source>
__device__ __forceinline__ void block_count(const Source& source, int64_t n, int32_t tile_rows, int64_t tiles,
                                            int32_t buckets, int32_t* counts) {
  CountShared& s = shared<CountShared>();
  for_each_block_tile(tiles, [&](int64_t t) {
    // thread b reads and zeroes only counts[b], and nobody adds before the barrier below
    s.counts[threadIdx.x] = 0;
    __syncthreads();
    for_each_chunk(n, tile_rows, t, [&](int64_t chunk, int64_t end) {
      // striped: each load of a warp is 32 consecutive rows
      typename Source::Item items[ITEMS];
      int32_t p[ITEMS];
      source.load(chunk + threadIdx.x, THREADS, end, items, p);
      // rows from the warp's first of step 0 to the end (at most a chunk)
      const int32_t warp_left = static_cast<int32_t>(end - chunk) - static_cast<int32_t>(threadIdx.x & ~31u);
#pragma unroll
      for (int k = 0; k < ITEMS; k++) {
        if (k * THREADS >= warp_left) break;  // the rest of the warp's rows are past the end
        // a warp of one bucket (skew, sorted input) adds once instead of 32 colliding atomics
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

// Stages phase PHASE of the chunk's rows in shared memory in grouped order, then writes it out, consecutive threads at
// consecutive positions of a bucket; then the phases after it. The thread's row k is row first + 32k, with
// ranked[k] = (its rank among the warp's rows of its bucket) << 8 | bucket, or -1 past the end; counts[b], the chunk
// rank of the warp's first row of bucket b. The first phase that moves anything (stage_buckets) stages the buckets
// too. The staged values of a phase are read before the next phase writes its own.
template <int PHASE, typename Payload, typename Item, typename S>
__device__ __forceinline__ void stage_and_write(S& s, const Payload& payload, int64_t first, const int32_t* counts,
                                                const int32_t (&ranked)[ITEMS], const Item (&items)[ITEMS],
                                                int32_t rows, bool stage_buckets = true) {
  if constexpr (PHASE < Payload::PHASES) {
    if (payload.moves(PHASE)) {
      using Value = decltype(payload.template value<PHASE>(first, items[0]));
      static_assert(sizeof(Value) <= sizeof(s.staged) / CHUNK, "a staged value is larger than STAGED_BYTES");
      Value* staged = reinterpret_cast<Value*>(s.staged);
#pragma unroll
      for (int k = 0; k < ITEMS; k++) {
        if (ranked[k] < 0) continue;
        const int32_t b = ranked[k] & 0xff;
        const int32_t r = counts[b] + (ranked[k] >> 8);
        staged[r] = payload.template value<PHASE>(first + 32 * k, items[k]);
        if (stage_buckets) s.staged_buckets[r] = static_cast<uint8_t>(b);
      }
      __syncthreads();
#pragma unroll
      for (int k = 0; k < ITEMS; k++) {
        const int32_t r = k * THREADS + static_cast<int32_t>(threadIdx.x);
        if (r < rows) payload.template write<PHASE>(static_cast<int64_t>(s.shift[s.staged_buckets[r]]) + r, staged[r]);
      }
      // the next phase's staging overwrites these values; the next chunk's comes after the barriers of its ranking
      if (PHASE + 1 < Payload::PHASES) __syncthreads();
    }
    stage_and_write<PHASE + 1>(s, payload, first, counts, ranked, items, rows,
                               stage_buckets && !payload.moves(PHASE));
  }
}

// What scatter_chunk calls before the ranking: nothing (the grouping's tiles know their positions already).
struct NoEarlyCounts {
  static constexpr bool COUNTS = false;
  __device__ __forceinline__ void operator()(int32_t) const {}
};

// Ranks the chunk [chunk, end) (at most CHUNK rows) in shared memory and writes its payload out: warp w holds rows
// chunk + w * WARP_ROWS + 32k + lane, so (warp, k, lane) is the input order, each warp ranks its rows k by k in its
// own counts (stable), and a scan over (bucket, warp) turns those counts into chunk ranks. Each phase of the payload
// is staged in shared memory in grouped order, then written out with consecutive threads at consecutive positions of
// a bucket. place(total), called by every thread b once the chunk is ranked, with total = the chunk's rows of bucket
// b (0 for b >= buckets), returns the output position of the first of them. With an Early whose COUNTS is true,
// early(total) is called by every thread b as soon as the rows are loaded, before the ranking, with the same total
// (counted by shared atomics): onesweep.cuh publishes it then, so that its successors' look-backs do not wait for
// this chunk's ranking; a block then ranks only that chunk. Blocks of THREADS, buckets <= BUCKETS.
template <typename Source, typename Payload, typename S, typename Place, typename Early = NoEarlyCounts>
__device__ __forceinline__ void scatter_chunk(S& s, const Source& source, const Payload& payload, int64_t chunk,
                                              int64_t end, int32_t buckets, Place place, Early early = {}) {
  const int warp = static_cast<int>(threadIdx.x >> 5);
  const int bucket = static_cast<int>(threadIdx.x);
  const int64_t warp_row = chunk + warp * WARP_ROWS;  // the warp's first row
  const int32_t warp_left = static_cast<int32_t>(end - warp_row);  // may be below 0
  const int64_t first = warp_row + lane_id();
  // every load of a warp is 32 consecutive rows
  typename Source::Item items[ITEMS];
  int32_t p[ITEMS];
  source.load(first, 32, end, items, p);
  if constexpr (Early::COUNTS) {
    // s.shift holds the counts until the ranking sets it: a block of early counts ranks one chunk (onesweep.cuh), so
    // no earlier chunk's writes still read it
    s.shift[bucket] = 0;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      if (p[k] >= 0) atomicAdd(&s.shift[p[k]], 1);
    }
    __syncthreads();
    early(s.shift[bucket]);
  }
  // rank: this warp's counts are its own (the previous chunk's readers of them were this warp's lanes)
  int32_t* counts = s.warp_counts[warp];
  uint32_t* match = s.warp_match[warp];
#pragma unroll
  for (int j = 0; j < BUCKETS / 32; j++) {
    counts[32 * j + lane_id()] = 0;
    match[32 * j + lane_id()] = 0;
  }
  __syncwarp();
#pragma unroll
  for (int k = 0; k < ITEMS; k++) {
    if (32 * k >= warp_left) break;  // the rest of the warp's rows are past the end (p = -1)
    const bool live = p[k] >= 0;
    const uint32_t label = live ? static_cast<uint32_t>(p[k]) : 0u;
    // the lanes of the step with this bucket: each sets its bit in the bucket's word (CUB's atomic-or match, fewer
    // instructions than a ballot a bucket bit, which left the pass bound by its instructions)
    if (live) atomicOr(&match[label], 1u << lane_id());
    __syncwarp();
    const uint32_t peers = live ? match[label] : 0u;
    const uint32_t below = peers & lanemask_lt();
    // the lowest lane of each bucket moves its count on and clears the word; its peers take the count before
    int32_t seen = 0;
    if (live && below == 0) {
      seen = counts[label];
      counts[label] = seen + __popc(peers);
    }
    seen = __shfl_sync(FULL_WARP, seen, __ffs(static_cast<int>(peers)) - 1);
    if (live && below == 0) match[label] = 0;  // every peer has read it: the shuffle waited for them all
    p[k] = live ? ((seen + __popc(below)) << 8 | static_cast<int32_t>(label)) : -1;
    __syncwarp();  // the next step's lowest lane reads what this one wrote, and its lanes the cleared words
  }
  __syncthreads();
  // bucket b: the chunk rank of each warp's first row of it, and where its rows go
  int32_t in_warp[WARPS], total = 0;
#pragma unroll
  for (int w = 0; w < WARPS; w++) {
    in_warp[w] = s.warp_counts[w][bucket];
    total += in_warp[w];
  }
  const int32_t bucket_first = block_exclusive_sum(total, s.warp_sums);
  int32_t rank = bucket_first;
#pragma unroll
  for (int w = 0; w < WARPS; w++) {
    s.warp_counts[w][bucket] = rank;
    rank += in_warp[w];
  }
  s.shift[bucket] = static_cast<int32_t>(place(total) - bucket_first);
  __syncthreads();
  stage_and_write<0>(s, payload, first, counts, p, items, static_cast<int32_t>(end - chunk));
}

// Moves the payload of row i to positions[p * tiles + t] + (rank of row i among tile t's rows of bucket p), for
// buckets <= BUCKETS; positions (the scanned counts) stay as they are. Chunk by chunk (scatter_chunk), each bucket's
// next position carried from one to the next. Blocks of THREADS.
template <typename Source, typename Payload>
__device__ __forceinline__ void block_scatter(const Source& source, const Payload& payload, int64_t n,
                                              int32_t tile_rows, int64_t tiles, int32_t buckets,
                                              const int32_t* positions) {
  using S = ScatterShared<Payload::STAGED_BYTES>;
  S& s = shared<S>();
  const int bucket = static_cast<int>(threadIdx.x);
  for_each_block_tile(tiles, [&](int64_t t) {
    // the next output position of this thread's bucket in tile t
    int32_t next = bucket < buckets ? positions[bucket * tiles + t] : 0;
    for_each_chunk(n, tile_rows, t, [&](int64_t chunk, int64_t end) {
      scatter_chunk(s, source, payload, chunk, end, buckets, [&](int32_t total) -> int64_t {
        const int32_t at = next;
        next += total;
        return at;
      });
    });
  });
}

}  // namespace block_grouping
}  // namespace sparkwarp
