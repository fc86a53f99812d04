// Warp-aggregated output: the lanes holding a result reserve their slots with ONE atomicAdd per warp on the output
// cursor, and write at their rank among the writing lanes, so consecutive lanes write consecutive slots.
#pragma once
#include <cstdint>

#include "sparkwarp/warp.cuh"

namespace sparkwarp {

// (probe row, build row) pairs into two int32 arrays. The caller guarantees room: the host sizes the arrays to an
// upper bound of the pairs one launch can produce.
struct WarpPairWriter {
  int32_t* probe_rows;
  int32_t* build_rows;
  unsigned long long* cursor;

  // All 32 lanes call this converged; lanes with `has` set write their pair.
  __device__ __forceinline__ void write(bool has, int32_t probe_row, int32_t build_row) const {
    const uint32_t writers = __ballot_sync(FULL_WARP, has);
    if (writers == 0) return;
    const int leader = __ffs(writers) - 1;
    unsigned long long base = 0;
    if (lane_id() == leader) base = atomicAdd(cursor, static_cast<unsigned long long>(__popc(writers)));
    base = __shfl_sync(FULL_WARP, base, leader);
    if (has) {
      const unsigned long long slot = base + __popc(writers & lanemask_lt());
      probe_rows[slot] = probe_row;
      build_rows[slot] = build_row;
    }
  }
};

}  // namespace sparkwarp
