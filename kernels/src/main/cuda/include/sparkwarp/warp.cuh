// Warp-level helpers: lane arithmetic and the masks ballot-based writers need. Every caller keeps all 32 lanes of
// the warp converged where these use the full mask.
#pragma once
#include <cstdint>

namespace sparkwarp {

constexpr uint32_t FULL_WARP = 0xffffffffu;

__device__ __forceinline__ int lane_id() { return static_cast<int>(threadIdx.x & 31); }

// Bits of the lanes below this one: popc(ballot & lanemask_lt()) is a lane's rank among the set lanes.
__device__ __forceinline__ uint32_t lanemask_lt() { return (1u << lane_id()) - 1u; }

// Global warp index and warp count of a 1-D grid, 64 bits wide.
__device__ __forceinline__ int64_t global_warp_index() {
  return (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
}

__device__ __forceinline__ int64_t grid_warps() { return (static_cast<int64_t>(gridDim.x) * blockDim.x) >> 5; }

// Inclusive prefix sum over the warp's lanes (Kogge-Stone with shuffles); unsigned types wrap.
template <typename T>
__device__ __forceinline__ T warp_inclusive_sum(T v) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const T n = __shfl_up_sync(FULL_WARP, v, d);
    if (lane_id() >= d) v += n;
  }
  return v;
}

// The lanes whose label has the same low `bits` bits (at most 8, uniform across the warp) as this lane's: a
// __match_any_sync of narrow labels by one ballot a bit, cheaper than the native match (CUB's BlockRadixRankMatch
// matches its digits the same way).
__device__ __forceinline__ uint32_t warp_match_low_bits(uint32_t label, int bits) {
  uint32_t peers = FULL_WARP;
#pragma unroll
  for (int b = 0; b < 8; b++) {
    if (b < bits) {
      const uint32_t ones = __ballot_sync(FULL_WARP, (label >> b) & 1u);
      peers &= (label >> b) & 1u ? ones : ~ones;
    }
  }
  return peers;
}

// Calls f(w) for every w in [0, n) with all 32 lanes of a warp on the same w: a grid-stride loop over warp-sized
// tiles, uniform within each warp so the body may use full-mask warp collectives.
template <typename F>
__device__ __forceinline__ void for_each_warp_tile(int64_t n, F f) {
  for (int64_t w = global_warp_index(); w < n; w += grid_warps()) f(w);
}

}  // namespace sparkwarp
