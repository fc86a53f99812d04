// Merge path (Odeh, Green, Mwassi, Shmueli and Birk, "Merge Path - Parallel Merging Made Simple") in the form of
// moderngpu's load-balancing search: the items [0, total) of n segments, whose exclusive starts offsets[0, n) do not
// decrease (empty segments share their successor's start), are merged with the segment starts, each start placed
// before the items it precedes or equals. Any prefix of that merged sequence is a diagonal of the (items x starts)
// grid; cutting it into equal diagonals gives every block the same count of segments plus items whatever their
// sizes, and within one cut an item's segment is a search among the cut's own starts.
#pragma once
#include <cstdint>

namespace sparkwarp {

// How many segment starts the first `diagonal` entries of the merged sequence hold: the largest b in
// [max(0, diagonal - total), min(diagonal, segments)] with offsets[b - 1] + b <= diagonal (a start there precedes
// item diagonal - b, the first item not taken). The left side of the test grows with b, so a binary search finds it.
__device__ __forceinline__ int64_t merge_path_starts(const int64_t* offsets, int64_t segments, int64_t total,
                                                     int64_t diagonal) {
  int64_t lo = diagonal > total ? diagonal - total : 0;
  int64_t hi = diagonal < segments ? diagonal : segments;
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) >> 1;
    if (offsets[mid - 1] + mid <= diagonal) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// How many of the sorted values[0, n) are <= value (an upper bound).
template <typename T>
__device__ __forceinline__ int64_t count_at_or_below(const T* values, int64_t n, int64_t value) {
  int64_t lo = 0;
  int64_t hi = n;
  while (lo < hi) {
    const int64_t mid = (lo + hi) >> 1;
    if (values[mid] <= value) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// The diagonal where item `item` is the next one taken: the items before it plus the starts at or before it.
__device__ __forceinline__ int64_t merge_path_diagonal_of_item(const int64_t* offsets, int64_t segments,
                                                               int64_t item) {
  return item + count_at_or_below(offsets, segments, item);
}

}  // namespace sparkwarp
