// Spark's ORDER BY on the device as an LSD radix sort, orchestrated by io.sparkwarp.kernels.sort.DeviceSort: per key
// column, statistics that tell which digit passes can change the order. Keys that fit one 64-bit word together (fixed
// width, their varying bits and null flags at most 64) are packed into it as the first pass reads them, and each pass
// groups (word, row id) pairs by a digit of the word itself (block_grouping.cuh's block path, over the sources and
// payload below, one kernel a pass as onesweep.cuh runs it, after one histogram kernel for all passes), ping-ponging
// between two pair buffers. Other keys take one pass per digit: one digit for each row of the current order
// (sort_keys.cuh), which grouping.cu's stable grouping turns into the next order. Host twin:
// io.sparkwarp.kernels.host.HostSortPrimitives; launches: io.sparkwarp.kernels.cuda.CudaSortPrimitives.
#include "sparkwarp/block_grouping.cuh"
#include "sparkwarp/grid.cuh"
#include "sparkwarp/onesweep.cuh"
#include "sparkwarp/sort_keys.cuh"
#include "sparkwarp/warp.cuh"

using namespace sparkwarp;

namespace {

__device__ __forceinline__ bool valid_row(const uint32_t* validity, int64_t i) {
  return (validity[i >> 5] >> (i & 31)) & 1u;
}

using block_grouping::ITEMS;

// A pair pass's rows read from a words array: the bucket is bits [shift, shift + log2(mask + 1)) of words[i].
struct WordSource {
  const uint64_t* words;
  int32_t shift;
  uint32_t mask;

  using Item = uint64_t;
  __device__ __forceinline__ void load(int64_t first, int stride, int64_t end, uint64_t (&items)[ITEMS],
                                       int32_t (&buckets)[ITEMS]) const {
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      const int64_t i = first + static_cast<int64_t>(k) * stride;
      items[k] = i < end ? words[i] : 0;
      buckets[k] = i < end ? static_cast<int32_t>((items[k] >> shift) & mask) : -1;
    }
  }
};

// The first pair pass's rows: each row's word packed from the key columns as the pass reads them (no words array).
struct KeySource {
  const sort_keys::PackedKeys* keys;
  int32_t shift;
  uint32_t mask;

  using Item = uint64_t;
  __device__ __forceinline__ void load(int64_t first, int stride, int64_t end, uint64_t (&items)[ITEMS],
                                       int32_t (&buckets)[ITEMS]) const {
    sort_keys::packed_words(*keys, first, stride, end, items);
#pragma unroll
    for (int k = 0; k < ITEMS; k++) {
      buckets[k] = first + static_cast<int64_t>(k) * stride < end ? static_cast<int32_t>((items[k] >> shift) & mask)
                                                                   : -1;
    }
  }
};

// What a pair pass moves, in two phases staged in turn: the word (unless words_out is null: the last pass needs only
// the order), then the row id, rows[i] (i itself where rows is null: the first pass), loaded only then so that a
// thread holds no more than the words while it ranks.
struct PairPayload {
  const int32_t* rows;
  uint64_t* words_out;
  int32_t* rows_out;

  static constexpr int PHASES = 2;
  static constexpr int STAGED_BYTES = 8;
  __device__ __forceinline__ bool moves(int phase) const { return phase != 0 || words_out != nullptr; }
  template <int PHASE>
  __device__ __forceinline__ auto value(int64_t i, uint64_t word) const {
    if constexpr (PHASE == 0) {
      return word;
    } else {
      return rows != nullptr ? rows[i] : static_cast<int32_t>(i);
    }
  }
  template <int PHASE, typename V>
  __device__ __forceinline__ void write(int64_t at, V value) const {
    if constexpr (PHASE == 0) {
      words_out[at] = value;
    } else {
      rows_out[at] = value;
    }
  }
};

}  // namespace

// stats[0, 6) (zeroed before) = of one key column's rows [0, n): the OR of every valid row's sortable key (lo, hi)
// and of its complement (lo, hi), so a bit set in both varies; the longest valid string; the count of nulls.
// A warp reduces its lanes' parts before one lane adds them in.
extern "C" __global__ void sw_sort_key_stats(int32_t kind, const uint8_t* data, const uint32_t* validity,
                                             const int32_t* offsets, int64_t n, unsigned long long* stats) {
  unsigned long long ones_lo = 0, ones_hi = 0, zeros_lo = 0, zeros_hi = 0, nulls = 0;
  long long longest = 0;
  const bool bytes = sort_keys::is_bytes(kind);
  for_each_index(n, [&](int64_t i) {
    if (!valid_row(validity, i)) {
      nulls++;
    } else if (bytes) {
      longest = max(longest, static_cast<long long>(offsets[i + 1] - offsets[i]));
    } else {
      const sort_keys::Key k = sort_keys::sortable_key(kind, data, i);
      ones_lo |= k.lo;
      ones_hi |= k.hi;
      zeros_lo |= ~k.lo;
      zeros_hi |= ~k.hi;
    }
  });
  for (int d = 16; d > 0; d >>= 1) {
    ones_lo |= __shfl_xor_sync(FULL_WARP, ones_lo, d);
    ones_hi |= __shfl_xor_sync(FULL_WARP, ones_hi, d);
    zeros_lo |= __shfl_xor_sync(FULL_WARP, zeros_lo, d);
    zeros_hi |= __shfl_xor_sync(FULL_WARP, zeros_hi, d);
    nulls += __shfl_xor_sync(FULL_WARP, nulls, d);
    longest = max(longest, __shfl_xor_sync(FULL_WARP, longest, d));
  }
  if (lane_id() == 0) {
    atomicOr(&stats[0], ones_lo);
    atomicOr(&stats[1], ones_hi);
    atomicOr(&stats[2], zeros_lo);
    atomicOr(&stats[3], zeros_hi);
    atomicMax(reinterpret_cast<long long*>(&stats[4]), longest);
    atomicAdd(&stats[5], nulls);
  }
}

// *nulls += the nulls among rows [0, n) of a validity bitmap: the one statistic of a key packed at its full width
// (io.sparkwarp.kernels.sort.KeyStatistics.nullsOnly), from a bit a row where sw_sort_key_stats reads the values.
extern "C" __global__ void sw_sort_null_count(const uint32_t* validity, int64_t n, unsigned long long* nulls) {
  unsigned long long count = 0;
  for_each_index((n + 31) / 32, [&](int64_t w) {
    const int64_t rows = n - 32 * w;
    const uint32_t past = rows < 32 ? ~0u << rows : 0u;  // bits past the last row count as valid
    count += 32 - __popc(validity[w] | past);
  });
  for (int d = 16; d > 0; d >>= 1) count += __shfl_xor_sync(FULL_WARP, count, d);
  if (lane_id() == 0 && count != 0) atomicAdd(nulls, count);
}

// digits[j] = digit `position` of row r = order[j] (r = j where order is null), max_digit - digit when descending:
// byte `position` of a fixed-width key, byte position `position` of a string. A null gets 0: nulls tie in every
// value pass, so they keep their order until the null pass places them.
extern "C" __global__ void sw_sort_digits(int32_t kind, const uint8_t* data, const uint32_t* validity,
                                          const int32_t* offsets, const int32_t* order, int64_t n, int32_t position,
                                          int32_t descending, int32_t* digits) {
  const bool bytes = sort_keys::is_bytes(kind);
  const int32_t top = sort_keys::max_digit(kind);
  for_each_index(n, [&](int64_t j) {
    const int64_t r = order != nullptr ? order[j] : j;
    if (!valid_row(validity, r)) {
      digits[j] = 0;
      return;
    }
    const int32_t d = bytes ? sort_keys::string_digit(data, offsets, r, position)
                            : sort_keys::key_digit(sort_keys::sortable_key(kind, data, r), position);
    digits[j] = descending ? top - d : d;
  });
}

// digits[j] = 0 for the rows of order (as above) that sort first by nullness, 1 for the others: the null pass.
extern "C" __global__ void sw_sort_null_digits(const uint32_t* validity, const int32_t* order, int64_t n,
                                               int32_t nulls_first, int32_t* digits) {
  for_each_index(n, [&](int64_t j) {
    const int64_t r = order != nullptr ? order[j] : j;
    digits[j] = valid_row(validity, r) == (nulls_first != 0) ? 1 : 0;
  });
}

// ranks[order[j]] = j for j in [0, n): each row's position in an order (a permutation of [0, n)), its inverse.
extern "C" __global__ void sw_sort_ranks(const int32_t* order, int64_t n, int32_t* ranks) {
  for_each_index(n, [&](int64_t j) {
    const int32_t r = order[j];
    if (r >= 0 && r < n) ranks[r] = static_cast<int32_t>(j);
  });
}

// rows[g] = order[p] for p = positions[g] where that row is valid and p in [0, n), else -1 (a null row for a
// gather), g in [0, count): the rows at positions of an order, such as the smallest rank of each group.
extern "C" __global__ void sw_sort_rows_at(const int32_t* positions, const uint32_t* validity, int64_t count,
                                           const int32_t* order, int64_t n, int32_t* rows) {
  for_each_index(count, [&](int64_t g) {
    const int32_t p = positions[g];
    rows[g] = valid_row(validity, g) && p >= 0 && p < n ? order[p] : -1;
  });
}

// The pair passes (onesweep.cuh), first the digit histograms of them all: counts[p * 256 + d] += the rows whose
// word has digit d in pass p of plan (counts zeroed before). Blocks of block_grouping::THREADS, any number; 4 of them
// an SM (at most 64 registers): packing 100 M int64 keys took 1.01 ms so against 1.08 at 3 an SM and 1.48 at 6,
// where the words spill (H200, digit_counts.cu bench).
extern "C" __global__ void __launch_bounds__(block_grouping::THREADS, 4)
    sw_sort_digit_counts(const uint64_t* words, int64_t n, const __grid_constant__ onesweep::DigitPlan plan,
                         int32_t* counts) {
  onesweep::digit_counts(WordSource{words, 0, 0}, n, plan, counts);
}

// The same over the words packed from the key columns: the histograms before the first pass; the words are also
// written to packed[0, n) unless it is null.
extern "C" __global__ void __launch_bounds__(block_grouping::THREADS, 4)
    sw_sort_digit_counts_keys(const __grid_constant__ sort_keys::PackedKeys keys, int64_t n,
                              const __grid_constant__ onesweep::DigitPlan plan, int32_t* counts, uint64_t* packed) {
  onesweep::digit_counts(KeySource{&keys, 0, 0}, n, plan, counts, packed);
}

static_assert(sizeof(onesweep::CountsShared) == 8192, "CudaSortPrimitives.COUNTS_SHARED_BYTES");
static_assert(sizeof(onesweep::PassShared<PairPayload::STAGED_BYTES>) == 54312,
              "CudaSortPrimitives.PASS_SHARED_BYTES");

// One stable pass over (word, row id) pairs: the pair of row i, (words[i], rows[i]) (i where rows is null), goes to
// (rows of digits below p) + its rank among the rows of digit p = bits [shift, shift + log2(buckets)) of its word,
// counts[p] being the rows of digit p: words_out (unless null) and rows_out there. A block a tile of
// block_grouping::CHUNK rows, handed out by next_tile; lookback (a word a (tile, bucket)) and next_tile zeroed
// before. Blocks of block_grouping::THREADS; 3 of them an SM (at most 80 registers: a thread holds its 16 words while
// it ranks them).
extern "C" __global__ void __launch_bounds__(block_grouping::THREADS, 3)
    sw_sort_pairs(const uint64_t* words, int32_t shift, int64_t n, int32_t buckets, const int32_t* counts,
                  uint64_t* lookback, uint32_t* next_tile, const int32_t* rows, uint64_t* words_out,
                  int32_t* rows_out) {
  onesweep::pass(WordSource{words, shift, static_cast<uint32_t>(buckets - 1)}, PairPayload{rows, words_out, rows_out},
                 n, buckets, counts, lookback, next_tile);
}

// The same of the first pass, over the words packed from the key columns.
extern "C" __global__ void __launch_bounds__(block_grouping::THREADS, 3)
    sw_sort_pairs_keys(const __grid_constant__ sort_keys::PackedKeys keys, int32_t shift, int64_t n, int32_t buckets,
                       const int32_t* counts, uint64_t* lookback, uint32_t* next_tile, const int32_t* rows,
                       uint64_t* words_out, int32_t* rows_out) {
  onesweep::pass(KeySource{&keys, shift, static_cast<uint32_t>(buckets - 1)}, PairPayload{rows, words_out, rows_out},
                 n, buckets, counts, lookback, next_tile);
}
