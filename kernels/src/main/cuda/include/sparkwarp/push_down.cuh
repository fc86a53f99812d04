// Push-down Parallelism (DogQC): the warp parallelises over the work items its lanes expanded to (a probe row's
// bucket entries) instead of over the lanes' own rows. Each lane owns a range [begin, end) of items; every round
// hands up to 32 items to the 32 lanes, taken from the lanes' ranges in lane order, so items are consumed by
// evenly loaded lanes and adjacent lanes read adjacent items (coalesced).
//
// A round is either wide or packed. Wide: the first lane with work (ballot, __ffs - 1) has 32 or more items left,
// and its next 32 fill the warp (a heavy hitter streams out in full rounds). Packed: several small ranges share the
// round: a warp prefix sum of the ranges' lengths gives each range its first lane, each lane finds the range that
// covers it by a binary search over the prefix sums with shuffles, and a range that does not fit whole gives the
// lanes what fits and keeps the rest for the next round (DogQC packs whole ranges only; splitting keeps rounds full).
#pragma once
#include <cstdint>

#include "sparkwarp/warp.cuh"

namespace sparkwarp {

// One lane's share of a round: whether it got an item, the lane whose range it came from, and the item's index.
struct PushDownItem {
  bool active;
  int owner;
  int64_t item;
};

// True while some lane's range is not empty: the loop condition of push_down_next.
__device__ __forceinline__ bool push_down_pending(int64_t begin, int64_t end) {
  return __any_sync(FULL_WARP, begin < end);
}

// The next round: every lane gets its item (if any) and the owners' `begin` advance past the items handed out.
// All 32 lanes call it converged; once no lane has items left, every lane gets none.
__device__ __forceinline__ PushDownItem push_down_next(int64_t& begin, int64_t end) {
  const int64_t remaining = end - begin;
  const int lane = lane_id();
  const int leader = __ffs(__ballot_sync(FULL_WARP, remaining > 0)) - 1;
  if (leader < 0) return {false, 0, 0};  // a batch's rounds after the last
  const int64_t leader_remaining = __shfl_sync(FULL_WARP, remaining, leader);
  const int64_t leader_begin = __shfl_sync(FULL_WARP, begin, leader);
  if (leader_remaining >= 32) {
    if (lane == leader) begin += 32;
    return {true, leader, leader_begin + lane};
  }
  const int32_t take = remaining < 32 ? static_cast<int32_t>(remaining) : 32;
  const int32_t inclusive = warp_inclusive_sum(take);
  const int32_t exclusive = inclusive - take;
  const int32_t total = __shfl_sync(FULL_WARP, inclusive, 31);
  // owner = the number of lanes whose inclusive sum is <= this lane's slot
  int owner = 0;
#pragma unroll
  for (int step = 16; step > 0; step >>= 1) {
    if (__shfl_sync(FULL_WARP, inclusive, owner + step - 1) <= lane) owner += step;
  }
  const int64_t owner_begin = __shfl_sync(FULL_WARP, begin, owner);
  const int32_t owner_exclusive = __shfl_sync(FULL_WARP, exclusive, owner);
  const int32_t room = 32 - exclusive;
  begin += room <= 0 ? 0 : (take < room ? take : room);
  return {lane < total, owner, owner_begin + (lane - owner_exclusive)};
}

}  // namespace sparkwarp
