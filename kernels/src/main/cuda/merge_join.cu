// Merge-path sort-merge join, orchestrated by io.sparkwarp.join.DeviceMergeJoin: both sides' keys were sorted
// together (one stable sort, so the left rows come first within a run of equal keys). Here the runs are found
// (heads, then an exclusive scan numbers them), bounded (first position, first right row), turned into each left
// row's range of matching right rows, and expanded into pairs by merge path over the ranges' offsets.
// Host twin: io.sparkwarp.kernels.host.HostMergeJoinPrimitives; launches: io.sparkwarp.kernels.cuda.
// CudaMergeJoinPrimitives.
#include "sparkwarp/grid.cuh"
#include "sparkwarp/join_keys.cuh"
#include "sparkwarp/merge_path.cuh"

using namespace sparkwarp;

namespace {

constexpr int EXPAND_THREADS = 256;     // io.sparkwarp.kernels.cuda.CudaKernel.BLOCK
constexpr int EXPAND_DIAGONAL = 2048;  // io.sparkwarp.kernels.cuda.CudaMergeJoinPrimitives.DIAGONAL

__device__ __forceinline__ void set_bit(uint32_t* bitmap, int64_t i) {
  atomicOr(&bitmap[i >> 5], 1u << (i & 31));
}

}  // namespace

// heads[j] = 1 where sorted position j starts a run: the first position, a row that matches nothing (null in a key
// column that is not null-safe), the row after one, or keys unlike the previous row's; else 0.
extern "C" __global__ void sw_merge_run_heads(KeyColumns keys, const int32_t* order, int64_t n, int32_t* heads) {
  for_each_index(n, [&](int64_t j) {
    const int32_t row = order[j];
    bool head = j == 0 || !key_joinable(keys, row);
    if (!head) {
      const int32_t previous = order[j - 1];
      head = !key_joinable(keys, previous) || !keys_equal(keys, previous, keys, row);
    }
    heads[j] = head ? 1 : 0;
  });
}

// With runs[j] = the heads before position j (runs[n]: the run count): run_starts[r] = the first position of run r
// and first_rights[r] = the position of its first right row (left as the caller's -1 where it has none).
extern "C" __global__ void sw_merge_run_bounds(const int32_t* order, const int32_t* runs, int64_t n,
                                               int32_t left_rows, int32_t* run_starts, int32_t* first_rights) {
  for_each_index(n, [&](int64_t j) {
    const bool head = runs[j + 1] != runs[j];
    const int32_t run = runs[j + 1] - 1;
    if (head) run_starts[run] = static_cast<int32_t>(j);
    if (order[j] >= left_rows && (head || order[j - 1] < left_rows)) first_rights[run] = static_cast<int32_t>(j);
  });
}

// counts[j] = the right rows of the run of the left row at position j (0 at right rows and runs without both
// sides), firsts[j] = the run's first right position; the match bits of the rows of runs with both sides.
extern "C" __global__ void sw_merge_match_ranges(const int32_t* order, const int32_t* runs, int64_t n,
                                                 int32_t left_rows, const int32_t* run_starts,
                                                 const int32_t* first_rights, int32_t* counts, int32_t* firsts,
                                                 uint32_t* left_matched, uint32_t* right_matched) {
  const int32_t run_count = runs[n];
  for_each_index(n, [&](int64_t j) {
    const int32_t run = runs[j + 1] - 1;
    const int32_t first_right = first_rights[run];
    const int32_t end = run + 1 < run_count ? run_starts[run + 1] : static_cast<int32_t>(n);
    // -1 without right rows; the run's start without left rows (those come first)
    const bool matches = first_right > run_starts[run];
    const int32_t row = order[j];
    const bool left = row < left_rows;
    counts[j] = left && matches ? end - first_right : 0;
    firsts[j] = first_right;
    if (matches) {
      if (left) {
        set_bit(left_matched, row);
      } else {
        set_bit(right_matched, row - left_rows);
      }
    }
  });
}

// Pairs [from, from + count) of the expansion of n match ranges (offsets[0, n]: their exclusive starts, int64):
// pair p of the range at position j goes to left_ids/right_ids[p - from]. Each block takes EXPAND_DIAGONAL entries
// of the merged (positions, pairs) sequence at a time: two merge-path searches cut its share, the share's starts go
// to shared memory, and each pair finds its range there by binary search. Coalesced writes, no atomics.
extern "C" __global__ void __launch_bounds__(EXPAND_THREADS)
    sw_merge_expand(const int64_t* offsets, const int32_t* firsts, const int32_t* order, int64_t n, int32_t left_rows,
                    int64_t from, int64_t count, int32_t* left_ids, int32_t* right_ids) {
  __shared__ int64_t starts[EXPAND_DIAGONAL];
  __shared__ int64_t cut[2];
  __shared__ int64_t chunk[2];  // the chunk's first and last diagonal, searched once per block
  const int64_t total = offsets[n];
  if (threadIdx.x < 2) chunk[threadIdx.x] = merge_path_diagonal_of_item(offsets, n, from + (threadIdx.x ? count : 0));
  __syncthreads();
  const int64_t first = chunk[0];
  const int64_t last = chunk[1];
  for (int64_t diagonal = first + static_cast<int64_t>(blockIdx.x) * EXPAND_DIAGONAL; diagonal < last;
       diagonal += static_cast<int64_t>(gridDim.x) * EXPAND_DIAGONAL) {
    const int64_t end = diagonal + EXPAND_DIAGONAL < last ? diagonal + EXPAND_DIAGONAL : last;
    if (threadIdx.x < 2) cut[threadIdx.x] = merge_path_starts(offsets, n, total, threadIdx.x == 0 ? diagonal : end);
    __syncthreads();
    const int64_t b0 = cut[0];
    const int64_t b1 = cut[1];
    for (int64_t i = threadIdx.x; i < b1 - b0; i += EXPAND_THREADS) starts[i] = offsets[b0 + i];
    __syncthreads();
    for (int64_t pair = diagonal - b0 + threadIdx.x; pair < end - b1; pair += EXPAND_THREADS) {
      // the last range starting at or before the pair: the one before the share's first start, or one of its own
      const int64_t j = b0 - 1 + count_at_or_below(starts, b1 - b0, pair);
      const int64_t start = j >= b0 ? starts[j - b0] : offsets[j];
      left_ids[pair - from] = order[j];
      right_ids[pair - from] = order[firsts[j] + (pair - start)] - left_rows;
    }
    __syncthreads();  // the next share rewrites starts and cut
  }
}
