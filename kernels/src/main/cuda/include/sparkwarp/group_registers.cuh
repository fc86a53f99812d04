// A thread's accumulators of G groups (a power of two, at most 32) of one aggregate of kind K in registers, for
// few groups: add(group, part) merges a row's part into the register of its group, G predicated adds selected by
// the bits of a one-hot word, no atomics and no shared memory; merge_warp then combines the warp's 32 threads'
// registers so that lane l holds the warp's total of group reversed(l) (l < G). The merge is a reduce-scatter: a
// step per bit of G halves the groups a lane holds (it keeps one half and sends the other to its partner), then the
// remaining steps add one group over the lanes: per 64-bit word 2 x (G - 1) + 2 x (5 - log2 G) shuffles, against
// 10 x G for a shuffle tree per group (12 against 40 at 4 groups, 18 against 80 at 8).
//
// Exact sums of values of at most 64 bits (Kind::narrow_sum) add 128 bits only: fewer than 2^63 rows fit them,
// and total() restores the top word from the sign of the middle one.
#pragma once
#include <cstdint>

#include "sparkwarp/aggregate_parts.cuh"
#include "sparkwarp/warp.cuh"

namespace sparkwarp {
namespace agg {

template <class K, int G>
struct GroupRegisters {
  static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0, "a power of two, at most a warp");
  static constexpr int GROUP_BITS = G == 1 ? 0 : G == 2 ? 1 : G == 4 ? 2 : G == 8 ? 3 : G == 16 ? 4 : 5;

  Part part[G];

  __device__ GroupRegisters() {
#pragma unroll
    for (int g = 0; g < G; g++) part[g] = identity_of(K::op());
  }

  // Merges p into group `group`'s register: none where group >= G (below 32).
  __device__ __forceinline__ void add(uint32_t group, const Part& p) {
    const uint32_t hit = one_hot(group);
#pragma unroll
    for (int g = 0; g < G; g++) {
      if (hit & (1u << g)) part[g] = combine(part[g], p);
    }
  }

  // Combines the warp's registers; then lane l < G holds the warp's total of group reversed(l) in part[0]. All
  // lanes of the warp take part.
  __device__ __forceinline__ void merge_warp() {
    const int lane = lane_id();
#pragma unroll
    for (int step = 0; step < GROUP_BITS; step++) {
      const int half = G >> (step + 1);
      const bool upper = (lane >> step) & 1;
#pragma unroll
      for (int i = 0; i < G / 2; i++) {  // a constant bound, so that it unrolls and part[] stays in registers
        if (i < half) {
          const Part keep = upper ? part[half + i] : part[i];
          const Part send = upper ? part[i] : part[half + i];
          part[i] = combine(keep, shuffled(send, 1 << step));
        }
      }
    }
#pragma unroll
    for (int bit = G; bit < 32; bit <<= 1) part[0] = combine(part[0], shuffled(part[0], bit));
  }

  // The group whose total this lane holds after merge_warp (lanes below G): its low GROUP_BITS bits reversed, as
  // step s kept the upper half of the groups on lanes with bit s set.
  __device__ static int reversed(int lane) {
    int g = 0;
#pragma unroll
    for (int step = 0; step < GROUP_BITS; step++) g |= ((lane >> step) & 1) << (GROUP_BITS - 1 - step);
    return g;
  }

  // The part held in part[0] after merge_warp, as apply takes it.
  __device__ __forceinline__ Part total() const {
    Part p = part[0];
    if constexpr (K::narrow_sum()) p.sum.w[2] = static_cast<uint64_t>(static_cast<int64_t>(p.sum.w[1]) >> 63);
    return p;
  }

 private:
  // 1 << bit, which the compiler cannot see through: written as comparisons of the group number, the G adds of a
  // row became a branch tree on it (divergent within a warp), where G tests of bits of this word stay G short
  // branches, the shape ptxas turns into predicated instructions (to be confirmed in the SASS).
  __device__ __forceinline__ static uint32_t one_hot(uint32_t bit) {
#ifdef __CUDA_ARCH__
    uint32_t word;
    asm("shl.b32 %0, 1, %1;" : "=r"(word) : "r"(bit));
    return word;
#else
    return 1u << bit;
#endif
  }

  __device__ __forceinline__ static Part combine(const Part& a, const Part& b) {
    if constexpr (K::narrow_sum()) {
      Part r = a;
      r.sum.w[0] = a.sum.w[0] + b.sum.w[0];
      r.sum.w[1] = a.sum.w[1] + b.sum.w[1] + (r.sum.w[0] < a.sum.w[0]);
      r.flags |= b.flags;
      return r;
    } else {
      return merge<K>(a, b);
    }
  }

  // The fields of kind K of the part of the lane lane_id() ^ mask.
  __device__ __forceinline__ static Part shuffled(const Part& p, int mask) {
    Part q = p;
    if constexpr (K::counts()) {
      q.count = __shfl_xor_sync(FULL_WARP, p.count, mask);
    } else if constexpr (K::op() == AGG_SUM && K::floating()) {
      q.fsum = __shfl_xor_sync(FULL_WARP, p.fsum, mask);
    } else if constexpr (K::op() == AGG_SUM) {
#pragma unroll
      for (int w = 0; w < (K::narrow_sum() ? 2 : 3); w++) q.sum.w[w] = __shfl_xor_sync(FULL_WARP, p.sum.w[w], mask);
    } else {
      q.best = __shfl_xor_sync(FULL_WARP, p.best, mask);
    }
    if constexpr (K::op() != AGG_COUNT_ALL) q.flags = __shfl_xor_sync(FULL_WARP, p.flags, mask);
    return q;
  }
};

}  // namespace agg
}  // namespace sparkwarp
