// Hash join kernels: table builds (unique-key open addressing with a duplicate detector; multi-match buckets by
// count, scan (scan.cu) and scatter), bucket statistics, per-probe-row candidate counts for output chunking, and
// the probe in three variants: naive (a lane per probe row, looping over its candidates), push-down (the warp
// spreads the candidates of its rows over its lanes, a batch of rounds' loads at a time) and refill (a probe-side
// selection bitmap filters rows, and a Lane Refill buffer runs the probe with full warps). Every probe launch covers
// a range of candidate positions (probe row, offset among the row's bucket entries) whose size the host bounded by
// the output capacity, writes (probe row, build row) pairs through a warp-aggregated writer, optionally marks
// matched rows on both sides, and reports lane utilisation. With a residual condition the probe marks nothing: the
// host evaluates the condition over the pairs and marks the rows of those that passed (sw_join_mark_rows).
// Host twin: io.sparkwarp.kernels.host.HostJoinKernels; orchestration: io.sparkwarp.kernels.join.SharedJoinPrimitives.
#include "sparkwarp/grid.cuh"
#include "sparkwarp/hash_table.cuh"
#include "sparkwarp/join_keys.cuh"
#include "sparkwarp/lane_refill.cuh"
#include "sparkwarp/lane_utilisation.cuh"
#include "sparkwarp/push_down.cuh"
#include "sparkwarp/warp.cuh"
#include "sparkwarp/warp_writer.cuh"

using namespace sparkwarp;

namespace {

constexpr int JOIN_BLOCK = 256;  // io.sparkwarp.kernels.cuda.CudaKernel.BLOCK
constexpr int JOIN_WARPS = JOIN_BLOCK / 32;

__device__ __forceinline__ bool selected(const uint32_t* selection, int64_t row) {
  return selection == nullptr || ((selection[row >> 5] >> (row & 31)) & 1u);
}

// A push-down probe row with more than HEAVY_RANGE candidates is not left to its warp, which would stream a heavy
// hitter alone while the rest of the grid idles (one warp over 452 K candidates was most of pk-zipf-fk's 11 ms): its
// range is cut into pieces of HEAVY_RANGE appended to a list, and sw_join_probe_heavy, launched after the probe,
// spreads the pieces over all warps, a piece per warp at a time.
constexpr int64_t HEAVY_RANGE = 4096;

struct HeavyPiece {
  int64_t row;
  int64_t lo;
  int64_t hi;
};

// Where deferred pieces go; pieces == nullptr: none are deferred. The host sizes the list for the launch's candidates
// c: at most c / HEAVY_RANGE heavy rows, each cut into at most its candidates / HEAVY_RANGE + 1 pieces.
struct HeavyList {
  HeavyPiece* pieces;
  unsigned long long* count;

  // Appends the pieces of row's range [lo, hi) (one lane; a lane per heavy row).
  __device__ __forceinline__ void defer(int64_t row, int64_t lo, int64_t hi) const {
    const int64_t n = (hi - lo + HEAVY_RANGE - 1) / HEAVY_RANGE;
    const int64_t base = static_cast<int64_t>(atomicAdd(count, static_cast<unsigned long long>(n)));
    for (int64_t i = 0; i < n; i++) {
      const int64_t from = lo + i * HEAVY_RANGE;
      pieces[base + i] = {row, from, hi - from < HEAVY_RANGE ? hi : from + HEAVY_RANGE};
    }
  }
};

// Everything a probe launch shares: the table, both key sets, the candidate range, and where results go.
// Candidate positions run from (row_begin, off_begin) up to, not including, (row_end, off_end).
struct ProbeLaunch {
  const KeyColumns& build;
  const KeyColumns& probe;
  const uint64_t* table;   // unique: slots; multi: entries
  const int32_t* offsets;  // multi: bucket offsets; unique: nullptr
  uint64_t mask;
  const uint32_t* selection;
  int64_t row_begin;
  int64_t off_begin;
  int64_t row_end;
  int64_t off_end;
  uint32_t* probe_matched;
  uint32_t* build_matched;
  mutable WarpPairWriter writer;  // this warp's: the launch is the warp's view

  // One past the last probe row with candidates in range.
  __device__ __forceinline__ int64_t row_stop() const { return off_end > 0 ? row_end + 1 : row_end; }

  __device__ __forceinline__ int64_t tiles() const { return (row_stop() - row_begin + 31) >> 5; }

  __device__ __forceinline__ bool live(int64_t row) const {
    // both bitmaps are read at once (not the validity after the selection), one latency per tile instead of two
    return row < row_stop() && (selected(selection, row) & key_joinable(probe, row));
  }

  // A multi-match probe row's candidates: its bucket's entries, cut to the launch's range.
  __device__ __forceinline__ void range(int64_t row, uint64_t hash, int64_t& lo, int64_t& hi) const {
    const uint64_t b = hash & mask;
    const int64_t base = offsets[b];
    lo = base + (row == row_begin ? off_begin : 0);
    hi = row == row_end ? base + off_end : offsets[b + 1];
  }

  // Checks Rounds candidates per lane (entry[r] of probe row row[r] with hash hash[r], on the lanes with active[r])
  // and writes the matches; every check is made before the first write, so the candidates' key reads overlap.
  // match[r]: whether candidate r matched. Converged.
  template <int Rounds>
  __device__ __forceinline__ void check(const bool (&active)[Rounds], const uint64_t (&entry)[Rounds],
                                        const uint64_t (&hash)[Rounds], const int64_t (&row)[Rounds],
                                        bool (&match)[Rounds]) const {
    int64_t build_row[Rounds];
#pragma unroll
    for (int r = 0; r < Rounds; r++) {
      match[r] = active[r] && tag_matches(entry[r], hash[r]);
      build_row[r] = tagged_row_id(entry[r]);
    }
    keys_equal_warp(match, build, build_row, probe, row);
#pragma unroll
    for (int r = 0; r < Rounds; r++) {
      writer.write(match[r], static_cast<int32_t>(row[r]), static_cast<int32_t>(build_row[r]));
      if (match[r]) {
        mark_matched(probe_matched, row[r]);
        mark_matched(build_matched, build_row[r]);
      }
    }
  }

  // One candidate per lane; returns whether it matched.
  __device__ __forceinline__ bool check(bool active, uint64_t entry, uint64_t hash, int64_t row) const {
    const bool a[1] = {active};
    const uint64_t e[1] = {entry}, h[1] = {hash};
    const int64_t r[1] = {row};
    bool match[1];
    check(a, e, h, r, match);
    return match[0];
  }

  // Unique table: each live lane walks its slots until a match or an empty slot; converged.
  __device__ __forceinline__ void probe_unique(bool live, int64_t row, LaneUtilisation& util) const {
    const uint64_t hash = live ? key_hash(probe, row) : 0;
    uint64_t slot = hash & mask;
    while (__any_sync(FULL_WARP, live)) {
      util.step(live);
      const uint64_t entry = live ? table[slot] : EMPTY_SLOT;
      if (entry == EMPTY_SLOT) live = false;
      if (check(live, entry, hash, row)) live = false;
      slot = (slot + 1) & mask;
    }
  }

  // Multi-match table, naive: each lane loops over its own candidates; converged.
  __device__ __forceinline__ void probe_multi_naive(bool live, int64_t row, LaneUtilisation& util) const {
    uint64_t hash = 0;
    int64_t lo = 0, hi = 0;
    if (live) {
      hash = key_hash(probe, row);
      range(row, hash, lo, hi);
    }
    while (__any_sync(FULL_WARP, lo < hi)) {
      const bool active = lo < hi;
      util.step(active);
      check(active, active ? table[lo] : 0, hash, row);
      if (active) lo++;
    }
  }

  // Multi-match table, push-down: the warp's candidates spread over its lanes (push_down_rounds). Rows with more
  // than HEAVY_RANGE candidates go to `heavy` instead, when it is given; converged.
  template <int Rounds>
  __device__ __forceinline__ void probe_multi_push_down(bool live, int64_t row, LaneUtilisation& util,
                                                        const HeavyList& heavy) const {
    uint64_t hash = 0;
    int64_t lo = 0, hi = 0;
    if (live) {
      hash = key_hash(probe, row);
      range(row, hash, lo, hi);
      if (heavy.pieces != nullptr && hi - lo > HEAVY_RANGE) {
        heavy.defer(row, lo, hi);
        lo = hi;
      }
    }
    push_down_rounds<Rounds>(row, hash, lo, hi, util);
  }

  // The candidates [lo, hi) of each lane's probe row (with its hash) spread over the warp's lanes, Rounds rounds at a
  // time: a batch's entries and build keys are read before any is compared or written, so a warp has Rounds rounds
  // of loads in flight instead of one round's chain of dependent loads; converged.
  template <int Rounds>
  __device__ __forceinline__ void push_down_rounds(int64_t row, uint64_t hash, int64_t lo, int64_t hi,
                                                   LaneUtilisation& util) const {
    while (push_down_pending(lo, hi)) {
      PushDownItem item[Rounds];
#pragma unroll
      for (int r = 0; r < Rounds; r++) item[r] = push_down_next(lo, hi);
      bool active[Rounds];
      uint64_t entry[Rounds], owner_hash[Rounds];
      int64_t owner_row[Rounds];
#pragma unroll
      for (int r = 0; r < Rounds; r++) {
        active[r] = item[r].active;
        entry[r] = active[r] ? table[item[r].item] : 0;
        owner_hash[r] = __shfl_sync(FULL_WARP, hash, item[r].owner);
        owner_row[r] = __shfl_sync(FULL_WARP, row, item[r].owner);
        util.step(active[r]);
      }
      bool match[Rounds];
      check(active, entry, owner_hash, owner_row, match);
    }
  }
};

// The rows of each 32-row tile of the launch's range, one tile per warp, handed to probe(live, row, util).
template <typename Probe>
__device__ __forceinline__ void each_tile(const ProbeLaunch& p, unsigned long long* counters, Probe probe) {
  LaneUtilisation util;
  for_each_warp_tile(p.tiles(), [&](int64_t t) {
    const int64_t row = p.row_begin + (t << 5) + lane_id();
    probe(p.live(row), row, util);
  });
  p.writer.flush();
  util.publish(counters + 1);
}

// The same through a Lane Refill buffer: filtered-out lanes are refilled before the probe runs.
template <typename Probe>
__device__ __forceinline__ void each_tile_refilled(const ProbeLaunch& p, unsigned long long* counters, int threshold,
                                                   Probe probe) {
  __shared__ int32_t stacks[JOIN_WARPS][32];
  LaneUtilisation util;
  LaneRefill refill{stacks[threadIdx.x >> 5], 0, threshold};
  auto op = [&](bool live, int32_t row) { probe(live, row, util); };
  for_each_warp_tile(p.tiles(), [&](int64_t t) {
    const int64_t row = p.row_begin + (t << 5) + lane_id();
    refill.step(p.live(row), static_cast<int32_t>(row), op);
  });
  refill.drain(op);
  p.writer.flush();
  util.publish(counters + 1);
}

}  // namespace

// hashes[i] = the key hash of row i (null key columns hash as NULL_KEY_HASH).
extern "C" __global__ void __launch_bounds__(JOIN_BLOCK)
    sw_join_hash(const KeyColumns keys, int64_t n, uint64_t* hashes) {
  for_each_index(n, [&](int64_t row) { hashes[row] = key_hash(keys, row); });
}

// Inserts every joinable row into the open-addressing table `slots` (EMPTY_SLOT-filled, mask + 1 slots, at least
// twice the rows). status[1] counts the joinable rows. A second row with equal keys sets status[0] and is not
// inserted; once set, inserts stop early (the host then builds a multi-match table instead).
// Same-address traffic, not the inserts, bounded this build: a counter atomic and a flag read per warp and row took
// 56 ms of a 100 M-row build on the H200, where the inserts alone take 8 (docs/PERFORMANCE.md). So each thread counts
// its rows in a register, added with one atomic per warp at the end, and reads the flag every DUPLICATE_CHECK rows.
constexpr int64_t DUPLICATE_CHECK = 16;

extern "C" __global__ void __launch_bounds__(JOIN_BLOCK)
    sw_join_unique_insert(const KeyColumns keys, int64_t n, unsigned long long* slots, uint64_t mask,
                          int32_t* status) {
  volatile int32_t* duplicate = status;
  uint32_t joined = 0;
  int64_t step = 0;
  for (int64_t row = global_thread_index(); row < n; row += grid_stride(), step++) {
    if (step % DUPLICATE_CHECK == 0 && *duplicate != 0) break;
    if (!key_joinable(keys, row)) continue;
    joined++;
    const uint64_t hash = key_hash(keys, row);
    const unsigned long long mine = tagged_row(hash, row);
    for (uint64_t slot = hash & mask;; slot = (slot + 1) & mask) {
      const unsigned long long old = atomicCAS(slots + slot, EMPTY_SLOT, mine);
      if (old == EMPTY_SLOT) break;
      if (tag_matches(old, hash) && keys_equal(keys, tagged_row_id(old), keys, row)) {
        if (*duplicate == 0) atomicExch(status, 1);  // read first: a hot key's rows all land here
        break;
      }
    }
  }
  joined = __reduce_add_sync(FULL_WARP, joined);  // every lane of the warp gets here: blocks are whole warps
  if (lane_id() == 0 && joined != 0) atomicAdd(status + 1, static_cast<int32_t>(joined));
}

// counts[b] += 1 for every joinable row whose bucket is b: the bucket lengths (zeroed by the host).
extern "C" __global__ void __launch_bounds__(JOIN_BLOCK)
    sw_join_bucket_count(const KeyColumns keys, int64_t n, int32_t* counts, uint64_t mask) {
  for_each_index(n, [&](int64_t row) {
    if (key_joinable(keys, row)) atomicAdd(counts + (key_hash(keys, row) & mask), 1);
  });
}

// entries[cursor[b]++] = the tagged row of every joinable row of bucket b; cursor starts as the bucket offsets.
extern "C" __global__ void __launch_bounds__(JOIN_BLOCK)
    sw_join_bucket_scatter(const KeyColumns keys, int64_t n, int32_t* cursor, uint64_t mask, uint64_t* entries) {
  for_each_index(n, [&](int64_t row) {
    if (!key_joinable(keys, row)) return;
    const uint64_t hash = key_hash(keys, row);
    entries[atomicAdd(cursor + (hash & mask), 1)] = tagged_row(hash, row);
  });
}

// stats[0] = the longest bucket, stats[1] = the number of non-empty buckets (both zeroed by the host).
extern "C" __global__ void __launch_bounds__(JOIN_BLOCK)
    sw_join_bucket_stats(const int32_t* offsets, int64_t buckets, unsigned long long* stats) {
  for_each_warp_tile((buckets + 31) >> 5, [&](int64_t w) {
    const int64_t b = (w << 5) + lane_id();
    const uint32_t length = b < buckets ? static_cast<uint32_t>(offsets[b + 1] - offsets[b]) : 0u;
    const uint32_t longest = __reduce_max_sync(FULL_WARP, length);
    const uint32_t non_empty = __popc(__ballot_sync(FULL_WARP, length > 0));
    if (lane_id() == 0 && non_empty > 0) {
      atomicMax(stats, static_cast<unsigned long long>(longest));
      atomicAdd(stats + 1, static_cast<unsigned long long>(non_empty));
    }
  });
}

// counts[(row - from) / group] += the candidates (bucket length) of every selected, joinable probe row in
// [from, to) of a multi-match table: what the host sizes output chunks by (counts zeroed by the host).
extern "C" __global__ void __launch_bounds__(JOIN_BLOCK)
    sw_join_candidate_counts(const int32_t* offsets, uint64_t mask, const KeyColumns probe,
                             const uint32_t* selection, int64_t from, int64_t to, int32_t group,
                             unsigned long long* counts) {
  for_each_warp_tile((to - from + 31) >> 5, [&](int64_t w) {
    const int64_t row = from + (w << 5) + lane_id();
    uint32_t n = 0;
    if (row < to && selected(selection, row) && key_joinable(probe, row)) {
      const uint64_t b = key_hash(probe, row) & mask;
      n = static_cast<uint32_t>(offsets[b + 1] - offsets[b]);
    }
    if ((group & 31) == 0) {
      const uint32_t sum = __reduce_add_sync(FULL_WARP, n);  // the tile lies in one group
      if (lane_id() == 0 && sum > 0) atomicAdd(counts + ((w << 5) / group), static_cast<unsigned long long>(sum));
    } else if (n > 0) {
      atomicAdd(counts + (row - from) / group, static_cast<unsigned long long>(n));
    }
  });
}

// Sets bit row_ids[i] of `bitmap` for i in [0, n): the rows of the pairs a residual condition kept. A row may come
// several times; mark_matched reads first, so a row already set costs no atomic.
extern "C" __global__ void __launch_bounds__(JOIN_BLOCK)
    sw_join_mark_rows(const int32_t* row_ids, int64_t n, uint32_t* bitmap) {
  for_each_index(n, [&](int64_t i) { mark_matched(bitmap, row_ids[i]); });
}

// The probe entry points share one signature. table: slots (unique) or entries (multi); offsets: nullptr (unique)
// or bucket offsets; selection, probe_matched, build_matched: bitmaps or nullptr; counters (zeroed by the host):
// [0] pairs written, [1] active lanes summed over warp iterations, [2] warp iterations; threshold: refill only.
// Resident blocks per SM the probe kernels are compiled for (H200 measurements, docs/PERFORMANCE.md): four (64
// registers) keep every variant spill-free, and the refill variants, which take 72 registers when allowed, then keep
// the naive ones' occupancy (with one block fewer they measured 13% slower than naive on an unfiltered probe).
// Push-down, compiled for two (80 registers with its batches of rounds; three blocks measured the same).
constexpr int PROBE_MIN_BLOCKS = 4;
constexpr int PUSH_DOWN_MIN_BLOCKS = 2;
// Push-down rounds whose loads a warp issues together. Kernel time on the H200 for 1, 2, 4 rounds (100 M pairs):
// pk-32-fk 1.61, 1.16, 1.04 ms; pk-8-fk 1.80, 1.91, 1.73 ms; pk-fk 6.19, 6.18, 6.31 ms.
constexpr int PUSH_DOWN_ROUNDS = 4;

#define SW_PROBE_PARAMS                                                                                        \
  const KeyColumns build, const KeyColumns probe, const uint64_t *table, const int32_t *offsets, uint64_t mask, \
      const uint32_t *selection, int64_t row_begin, int64_t off_begin, int64_t row_end, int64_t off_end,        \
      uint32_t *probe_matched, uint32_t *build_matched, int32_t *probe_rows, int32_t *build_rows,               \
      unsigned long long *counters, int32_t threshold
#define SW_PROBE_LAUNCH                                                                                     \
  __shared__ int32_t pair_stage[JOIN_WARPS][2][PAIR_STAGE];                                                 \
  int32_t(*const warp_stage)[PAIR_STAGE] = pair_stage[threadIdx.x >> 5];                                    \
  const ProbeLaunch p{build,     probe,   table,         offsets,       mask,                                \
                      selection, row_begin, off_begin,   row_end,       off_end,                             \
                      probe_matched, build_matched,                                                         \
                      WarpPairWriter{probe_rows, build_rows, counters, warp_stage[0], warp_stage[1], 0}}

extern "C" __global__ void __launch_bounds__(JOIN_BLOCK, PROBE_MIN_BLOCKS) sw_join_probe_unique_naive(SW_PROBE_PARAMS) {
  SW_PROBE_LAUNCH;
  each_tile(p, counters, [&](bool live, int64_t row, LaneUtilisation& u) { p.probe_unique(live, row, u); });
}

extern "C" __global__ void __launch_bounds__(JOIN_BLOCK, PROBE_MIN_BLOCKS) sw_join_probe_unique_refill(SW_PROBE_PARAMS) {
  SW_PROBE_LAUNCH;
  each_tile_refilled(p, counters, threshold,
                     [&](bool live, int64_t row, LaneUtilisation& u) { p.probe_unique(live, row, u); });
}

extern "C" __global__ void __launch_bounds__(JOIN_BLOCK, PROBE_MIN_BLOCKS) sw_join_probe_multi_naive(SW_PROBE_PARAMS) {
  SW_PROBE_LAUNCH;
  each_tile(p, counters, [&](bool live, int64_t row, LaneUtilisation& u) { p.probe_multi_naive(live, row, u); });
}

// pieces, piece_count (zeroed by the host): the HeavyList rows with more than HEAVY_RANGE candidates are deferred to;
// pieces nullptr: none are deferred.
extern "C" __global__ void __launch_bounds__(JOIN_BLOCK, PUSH_DOWN_MIN_BLOCKS)
    sw_join_probe_multi_push_down(SW_PROBE_PARAMS, HeavyPiece* pieces, unsigned long long* piece_count) {
  SW_PROBE_LAUNCH;
  const HeavyList heavy{pieces, piece_count};
  each_tile(p, counters, [&](bool live, int64_t row, LaneUtilisation& u) {
    p.probe_multi_push_down<PUSH_DOWN_ROUNDS>(live, row, u, heavy);
  });
}

// The pieces sw_join_probe_multi_push_down deferred to `heavy`, one per warp at a time: lane 0 owns the piece and
// push-down's wide rounds spread it over the warp. Same parameters and counters as the probe it follows.
extern "C" __global__ void __launch_bounds__(JOIN_BLOCK, PUSH_DOWN_MIN_BLOCKS)
    sw_join_probe_heavy(SW_PROBE_PARAMS, const HeavyPiece* pieces, const unsigned long long* piece_count) {
  SW_PROBE_LAUNCH;
  LaneUtilisation util;
  for_each_warp_tile(static_cast<int64_t>(*piece_count), [&](int64_t i) {
    const HeavyPiece piece = pieces[i];
    const bool owner = lane_id() == 0;
    p.push_down_rounds<PUSH_DOWN_ROUNDS>(piece.row, owner ? key_hash(probe, piece.row) : 0, owner ? piece.lo : 0,
                                         owner ? piece.hi : 0, util);
  });
  p.writer.flush();
  util.publish(counters + 1);
}

extern "C" __global__ void __launch_bounds__(JOIN_BLOCK, PROBE_MIN_BLOCKS) sw_join_probe_multi_refill(SW_PROBE_PARAMS) {
  SW_PROBE_LAUNCH;
  each_tile_refilled(p, counters, threshold,
                     [&](bool live, int64_t row, LaneUtilisation& u) { p.probe_multi_naive(live, row, u); });
}
