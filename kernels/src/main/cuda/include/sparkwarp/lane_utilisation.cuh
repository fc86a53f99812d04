// Lane utilisation of warp loops: per warp, the active lanes summed over loop iterations and the iteration count,
// kept in registers and published with two atomics per warp, so active / (32 * iterations) is the average share of
// lanes doing useful work.
#pragma once
#include <cstdint>

#include "sparkwarp/warp.cuh"

namespace sparkwarp {

struct LaneUtilisation {
  unsigned long long active_lanes = 0;
  unsigned long long iterations = 0;

  // One loop iteration in which the lanes with `active` set do work; all 32 lanes call it converged. An iteration in
  // which no lane works (a push-down batch's rounds after the last) is not counted.
  __device__ __forceinline__ void step(bool active) {
    const int lanes = __popc(__ballot_sync(FULL_WARP, active));
    active_lanes += lanes;
    iterations += lanes > 0;
  }

  // Lanes that worked over `warp_iterations` iterations, counted in bulk by a loop whose shape says them.
  __device__ __forceinline__ void account(unsigned long long lanes, unsigned long long warp_iterations) {
    active_lanes += lanes;
    iterations += warp_iterations;
  }

  // Adds this warp's totals to counters[0] (active lanes) and counters[1] (iterations).
  __device__ __forceinline__ void publish(unsigned long long* counters) const {
    if (lane_id() == 0 && iterations > 0) {
      atomicAdd(counters, active_lanes);
      atomicAdd(counters + 1, iterations);
    }
  }
};

}  // namespace sparkwarp
