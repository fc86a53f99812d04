// Lane Refill (DogQC): after a filter, a warp keeps its surviving rows in a per-warp shared-memory stack while
// fewer than T lanes are active, and runs the next operator only with at least T active lanes, refilling idle lanes
// from the stack. The stack holds fewer than T <= 32 rows, so one slot per lane is enough. Flush and refill place
// rows by popc prefix sums over the active (resp. idle) lanes; refill takes from the top so the stack stays dense.
// After the last input, drain() runs the stacked rows below threshold (DogQC's "pipeline flush").
#pragma once
#include <cstdint>

#include "sparkwarp/warp.cuh"

namespace sparkwarp {

struct LaneRefill {
  int32_t* stack;  // this warp's 32 shared-memory slots
  int count;       // rows on the stack, the same in every lane
  int threshold;   // T: the fewest active lanes the operator runs with

  // Active lanes push their row.
  __device__ __forceinline__ void flush(bool active, int32_t row) {
    const uint32_t m = __ballot_sync(FULL_WARP, active);
    if (active) stack[count + __popc(m & lanemask_lt())] = row;
    count += __popc(m);
    __syncwarp();
  }

  // Idle lanes pop rows from the top of the stack, as many as there are (or as there are idle lanes).
  __device__ __forceinline__ void refill(bool& active, int32_t& row) {
    const uint32_t m = __ballot_sync(FULL_WARP, active);
    const int remain = max(count + __popc(m) - 32, 0);
    const int src = __popc(~m & lanemask_lt()) + remain;
    if (!active && src < count) {
      row = stack[src];
      active = true;
    }
    count = remain;
    __syncwarp();  // the popped slots may be pushed again
  }

  // One input step: runs op(active, row) while active lanes plus stacked rows reach T (refilling idle lanes
  // whenever rows are stacked: a full warp costs no more than a partial one), stacks what is left below T.
  template <typename Op>
  __device__ __forceinline__ void step(bool active, int32_t row, Op op) {
    int n_active = __popc(__ballot_sync(FULL_WARP, active));
    while (count + n_active >= threshold) {
      if (count > 0) refill(active, row);
      op(active, row);
      active = false;
      n_active = 0;
    }
    if (n_active > 0) flush(active, row);
  }

  // After the last input: runs the stacked rows, however few.
  template <typename Op>
  __device__ __forceinline__ void drain(Op op) {
    while (count > 0) {
      bool active = false;
      int32_t row = 0;
      refill(active, row);
      op(active, row);
    }
  }
};

}  // namespace sparkwarp
