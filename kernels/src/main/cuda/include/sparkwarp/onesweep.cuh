// One LSD radix pass a kernel, after Onesweep (Adinets & Merrill 2022; CUB's agent_radix_sort_onesweep.cuh), over
// any Source and Payload of block_grouping.cuh: sort.cu's (word, row id) pair passes.
//
// Where a pass goes: row i of digit d lands at (rows of digits below d) + (rows of digit d before i). The first term
// comes from histograms of every pass's digit, counted in one read of the keys before the first pass
// (digit_counts). The second needs the counts of digit d in every earlier tile: instead of a count kernel that reads
// the keys once more and a scan of its matrix, each tile publishes its counts as soon as it has counted them and adds
// up its predecessors' (decoupled look-back, Merrill & Garland 2016). Tiles are handed out in order by an atomic
// counter, so every predecessor of a tile is already running and will publish (no deadlock whatever the schedule).
// A tile publishes its own counts before it ranks its rows and looks back after, so the look-back mostly finds the
// tiles before it published.
//
// Bytes a row and pass for (int64 word, int32 row id): read 12, write 12 (the first pass reads the key columns
// instead, the last writes only the id), against 20 read and 12 written with a count kernel; plus one 8-byte read a
// row for all passes' histograms, and 2 KB of look-back words a 4096-row tile.
#pragma once
#include <cstdint>

#include "sparkwarp/block_grouping.cuh"
#include "sparkwarp/block_scan.cuh"
#include "sparkwarp/grid.cuh"
#include "sparkwarp/warp.cuh"

namespace sparkwarp {
namespace onesweep {

using block_grouping::BUCKETS;
using block_grouping::CHUNK;
using block_grouping::ITEMS;
using block_grouping::THREADS;

// The passes of a 64-bit word by digits of up to 8 bits (io.sparkwarp.kernels.sort.PackedKeys.passes, at most 8).
constexpr int MAX_PASSES = 8;

// Passed by value (a __grid_constant__ kernel parameter): io.sparkwarp.kernels.cuda.CudaSortPrimitives lays it out.
struct DigitPlan {
  int32_t passes;
  int32_t shift[MAX_PASSES];  // pass p's digit is bits [shift[p], shift[p] + bits[p]) of the word
  int32_t bits[MAX_PASSES];
  int32_t unused;
};
static_assert(sizeof(DigitPlan) == 72, "CudaSortPrimitives.digitPlan");

// A look-back word of (tile, digit): the status in the top 2 bits and a count below, one 64-bit store, so a reader
// sees both or neither (no fence between a count and its flag). 64 bits rather than CUB's 32: an inclusive prefix
// here counts from the pass's first row (up to 2^31 - 1 rows, 31 bits), CUB's portions stay below 2^30.
constexpr uint64_t FLAG_NOT_READY = 0;           // what the memset before a pass leaves
constexpr uint64_t FLAG_AGGREGATE = 1ull << 62;  // the tile's own count of the digit
constexpr uint64_t FLAG_PREFIX = 2ull << 62;     // the digit's rows up to the tile's last, from the pass's start
constexpr uint64_t COUNT_MASK = (1ull << 62) - 1;

// Volatile: the store and the loads go to L2, which all blocks share, and the spinning load is not hoisted.
__device__ __forceinline__ void publish(uint64_t* word, uint64_t value) {
  *reinterpret_cast<volatile uint64_t*>(word) = value;
}

// The output position of tile `tile`'s first row of `digit` (tile above 0): the sum of the predecessors' counts back
// to the nearest inclusive prefix, waiting on each until it is published. Tile 0 always publishes a prefix.
__device__ __forceinline__ int64_t look_back(const uint64_t* lookback, int64_t tile, int digit) {
  int64_t before = 0;
  for (int64_t t = tile - 1;; t--) {
    const volatile uint64_t* word = lookback + t * BUCKETS + digit;
    uint64_t w;
    do {
      w = *word;
    } while ((w & ~COUNT_MASK) == FLAG_NOT_READY);
    before += static_cast<int64_t>(w & COUNT_MASK);
    if ((w & ~COUNT_MASK) == FLAG_PREFIX) return before;
  }
}

struct CountsShared {
  int32_t counts[MAX_PASSES][BUCKETS];  // the block's rows of each digit of each pass
};

// counts[p * BUCKETS + d] += the rows of [0, n) whose digit of pass p is d, for every pass of plan: each block
// counts chunks in shared memory, then adds its counts in (counts zeroed before); words_out, unless null, gets
// every row's word. Blocks of THREADS; Source as block_grouping.cuh's, with Item the row's word (its buckets are not
// used).
template <typename Source>
__device__ __forceinline__ void digit_counts(const Source& source, int64_t n, const DigitPlan& plan,
                                             int32_t* counts, uint64_t* words_out = nullptr) {
  CountsShared& s = block_grouping::shared<CountsShared>();
  for (int p = 0; p < plan.passes; p++) s.counts[p][threadIdx.x] = 0;
  __syncthreads();
  for_each_block_tile((n + CHUNK - 1) / CHUNK, [&](int64_t c) {
    const int64_t first = c * CHUNK + threadIdx.x;
    const int64_t end = c * CHUNK + CHUNK < n ? c * CHUNK + CHUNK : n;
    uint64_t words[ITEMS];
    int32_t unused[ITEMS];
    source.load(first, THREADS, end, words, unused);
    if (words_out != nullptr) {
#pragma unroll
      for (int k = 0; k < ITEMS; k++) {
        if (first + k * THREADS < end) words_out[first + k * THREADS] = words[k];
      }
    }
    // one plain shared atomic a row and pass, as CUB's histogram: a warp whose 32 rows share a digit (a pass
    // DeviceSort leaves out, sorted or skewed keys) costs no more on an H200 (digit_counts.cu bench: 100 M int64
    // keys below 2^26 as fast as random ones), and voting first cost random keys a third more
    for (int p = 0; p < plan.passes; p++) {
      const uint32_t mask = (1u << plan.bits[p]) - 1;
#pragma unroll
      for (int k = 0; k < ITEMS; k++) {
        if (first + k * THREADS < end) atomicAdd(&s.counts[p][(words[k] >> plan.shift[p]) & mask], 1);
      }
    }
  });
  __syncthreads();
  for (int p = 0; p < plan.passes; p++) {
    const int32_t c = s.counts[p][threadIdx.x];
    if (c != 0) atomicAdd(&counts[p * BUCKETS + threadIdx.x], c);
  }
}

template <int STAGED_BYTES>
struct PassShared {
  block_grouping::ScatterShared<STAGED_BYTES> scatter;
  int64_t tile;  // the tile the block was handed
};

// A tile publishes its counts as soon as it has loaded its rows (CUB's early counts): its aggregate, or tile 0 its
// inclusive prefix, before it ranks them, and looks back only after its ranking. Publishing after the ranking made
// every look-back wait for the predecessors' rankings: 12.5 against 11.8 ms for 100 M int64 keys on an H200.
struct EarlyCounts {
  uint64_t* own;
  int64_t tile;
  int32_t start;
  bool live;
  static constexpr bool COUNTS = true;
  __device__ __forceinline__ void operator()(int32_t total) const {
    if (live) publish(own, (tile == 0 ? FLAG_PREFIX : FLAG_AGGREGATE) | static_cast<uint64_t>(start + total));
  }
};

// One stable pass: the Payload of row i goes to (rows of digits below its digit p) + (its rank among the rows of
// digit p), p = the Source's bucket of row i, below buckets <= BUCKETS; counts[p] = the rows of digit p (this pass's
// digit_counts). One block a tile of CHUNK rows, ceil(n / CHUNK) blocks of THREADS; lookback (a word a (tile,
// digit)) and next_tile zeroed before.
template <typename Source, typename Payload>
__device__ __forceinline__ void pass(const Source& source, const Payload& payload, int64_t n, int32_t buckets,
                                     const int32_t* counts, uint64_t* lookback, uint32_t* next_tile) {
  using S = PassShared<Payload::STAGED_BYTES>;
  S& s = block_grouping::shared<S>();
  const int digit = static_cast<int>(threadIdx.x);
  if (threadIdx.x == 0) s.tile = atomicAdd(next_tile, 1u);
  __syncthreads();
  const int64_t tile = s.tile;
  // tile 0 starts each digit after the digits below it; a block-uniform branch, before the ranking's barriers
  const int32_t start =
      tile == 0 ? block_exclusive_sum(digit < buckets ? counts[digit] : 0, s.scatter.warp_sums) : 0;
  const int64_t chunk = tile * CHUNK;
  const bool live = digit < buckets;
  uint64_t* own = lookback + tile * BUCKETS + digit;
  block_grouping::scatter_chunk(s.scatter, source, payload, chunk, chunk + CHUNK < n ? chunk + CHUNK : n, buckets,
                                [&](int32_t total) -> int64_t {
                                  if (!live) return 0;
                                  if (tile == 0) return start;  // its prefix is out already
                                  const int64_t before = look_back(lookback, tile, digit);
                                  publish(own, FLAG_PREFIX | static_cast<uint64_t>(before + total));
                                  return before;
                                },
                                EarlyCounts{own, tile, start, live});
}

}  // namespace onesweep
}  // namespace sparkwarp
