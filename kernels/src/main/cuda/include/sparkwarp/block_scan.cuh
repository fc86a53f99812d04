// Block-wide prefix sum of one value a thread, for blocks of whole warps: written with warp shuffles rather than
// CUB so that the CPU emulation of the tests runs it too.
#pragma once
#include <cstdint>

#include "sparkwarp/warp.cuh"

namespace sparkwarp {

// The sum of v over the threads of the block below this one. Every thread of the block calls it; warp_sums is shared
// scratch of one value a warp, so a __syncthreads must separate two calls (the second would overwrite sums the
// first's threads may still be reading).
template <typename T, int WARPS>
__device__ __forceinline__ T block_exclusive_sum(T v, T (&warp_sums)[WARPS]) {
  const T inclusive = warp_inclusive_sum(v);
  if (lane_id() == 31) warp_sums[threadIdx.x >> 5] = inclusive;
  __syncthreads();
  T before = 0;
  for (int w = 0; w < static_cast<int>(threadIdx.x >> 5); w++) before += warp_sums[w];
  return before + inclusive - v;
}

}  // namespace sparkwarp
