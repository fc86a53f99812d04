// A SegmentMatcher run by a whole warp over one SELF_PIVOTED string (Sitaridi's Self-Pivot). Lane l owns the
// occurrences that start in segment l of the string and finishes them by reading up to m - 1 bytes into segment
// l + 1; the lanes step through their segments' pieces together, so each step reads 256 contiguous bytes. Ordered
// segments are found one after another: a search gives the leftmost occurrence's end by a warp min-reduction (the
// lowest lane that found one holds it) and the next search starts there. A lane stops as soon as a lane below it has
// found an occurrence, whose start lies left of anything it could find. All functions are called by the 32 lanes
// converged, on the same row.
#pragma once
#include <cstdint>

#include "sparkwarp/kmp.cuh"
#include "sparkwarp/lane_utilisation.cuh"
#include "sparkwarp/string_pieces.cuh"
#include "sparkwarp/warp.cuh"

namespace sparkwarp {

// Whether the prefix and suffix pieces of a string of n bytes (long enough for both) hold the anchors; lanes take
// a piece each.
__device__ __forceinline__ bool warp_anchors_match(const SegmentProgram& p, const SelfPivotedPieces& row, int32_t n,
                                                   LaneUtilisation& util) {
  const int32_t prefix_pieces = (p.prefix_length + 7) >> 3;
  const int32_t suffix_begin = n - p.suffix_length;
  const int32_t suffix_first = suffix_begin >> 3;
  const int32_t suffix_pieces = p.suffix_length == 0 ? 0 : ((n + 7) >> 3) - suffix_first;
  const int32_t total = prefix_pieces + suffix_pieces;
  for (int32_t first = 0; first < total; first += 32) {
    const int32_t i = first + lane_id();
    const bool active = i < total;
    util.step(active);
    bool ok = true;
    if (active && i < prefix_pieces) {
      const int hi = p.prefix_length - 8 * i < 8 ? p.prefix_length - 8 * i : 8;
      ok = p.prefix_matches(row.piece(i), i, 0, hi);
    } else if (active) {
      const int32_t k = suffix_first + (i - prefix_pieces);
      const int lo = suffix_begin > 8 * k ? suffix_begin - 8 * k : 0;
      const int hi = n - 8 * k < 8 ? n - 8 * k : 8;
      ok = p.suffix_matches(row.piece(k), k, lo, hi, n);
    }
    if (!__all_sync(FULL_WARP, ok)) return false;
  }
  return true;
}

// The end of the leftmost occurrence of segment `seg` within bytes [from, to), or -1 when there is none.
__device__ __forceinline__ int32_t warp_find_segment(const SegmentProgram& p, const SelfPivotedPieces& row,
                                                     int32_t seg, int32_t from, int32_t to, LaneUtilisation& util) {
  constexpr uint32_t NONE = 0xffffffffu;
  const int32_t base = p.segment_base[seg];
  const int32_t m = p.segment_length[seg];
  // this lane's candidate starts, [first, last); 64 bits because 32 segments round the string up past 2^31 bytes
  const int64_t own = static_cast<int64_t>(lane_id()) * row.segment_bytes();
  const int64_t first = own > from ? own : from;
  const int64_t own_end = own + row.segment_bytes();
  const int64_t last = own_end < to - m + 1 ? own_end : to - m + 1;
  bool active = first < last;
  int32_t pos = static_cast<int32_t>(first);
  // the bytes an occurrence starting before `last` may use
  const int32_t stop = active ? static_cast<int32_t>(last + m - 1 < to ? last + m - 1 : to) : 0;
  int32_t j = 0;
  uint32_t found = NONE;
  SegmentCursor cursor(row, active ? pos >> 3 : 0);
  while (__any_sync(FULL_WARP, active)) {
    util.step(active);
    if (active) {
      const int32_t k = pos >> 3;
      const int hi = stop - 8 * k < 8 ? stop - 8 * k : 8;
      const int at = p.scan_piece(base, m, cursor.read(row), pos & 7, hi, j);
      if (at >= 0) {
        found = static_cast<uint32_t>(8 * k + at);
        active = false;
      } else {
        pos = 8 * k + hi;
        active = pos < stop;
        cursor.advance(row);
      }
    }
    if (__ballot_sync(FULL_WARP, found != NONE) & lanemask_lt()) active = false;
  }
  const uint32_t end = __reduce_min_sync(FULL_WARP, found);
  return end == NONE ? -1 : static_cast<int32_t>(end);
}

// Whether the string of n bytes matches.
__device__ __forceinline__ bool warp_match_segments(const SegmentProgram& p, const SelfPivotedPieces& row, int32_t n,
                                                    LaneUtilisation& util) {
  if (!p.length_allows(n) || !warp_anchors_match(p, row, n, util)) return false;
  int32_t from = p.prefix_length;
  const int32_t to = n - p.suffix_length;
  for (int32_t seg = 0; seg < p.segment_count; seg++) {
    if (to - from < p.rest[seg]) return false;
    from = warp_find_segment(p, row, seg, from, to, util);
    if (from < 0) return false;
  }
  return true;
}

}  // namespace sparkwarp
