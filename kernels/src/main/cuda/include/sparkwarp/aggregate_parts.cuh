// What rows add to a group's accumulators of one aggregate (aggregate_spec.cuh): a Part, made from a row by part_of,
// combined with another by merge, added to accumulators in shared or global memory by apply (atomically, exact),
// and read back from them by held. An aggregate's accumulators are acc_words 64-bit words a group (a count, an
// order-preserving int64 extreme, a double sum or an exact 192-bit sum, int192.cuh) and a FLAG_ word a group.
#pragma once
#include <cstdint>

#include "sparkwarp/aggregate_spec.cuh"
#include "sparkwarp/int192.cuh"

namespace sparkwarp {
namespace agg {

// What one row, or a set of rows, adds to one group's accumulator of one aggregate. Each kind uses its own fields:
// counts count, exact sums sum, floating sums fsum, extremes best; flags all but COUNT_ALL.
struct Part {
  unsigned long long count;
  Int192 sum;
  double fsum;
  int64_t best;
  uint32_t flags;
};

__device__ __forceinline__ Part identity_of(int32_t op) {
  return {0, int192_zero(), 0.0, op == AGG_MIN ? INT64_MAX : INT64_MIN, 0};
}

__device__ __forceinline__ Part identity(const AggSpec& s) { return identity_of(s.op); }

// What a row adds to its group's accumulator of an aggregate of kind K. Every load comes first, none behind a branch
// on what another one read (booleans combined with &, not &&), and the part is selected from them: the loads of a
// row, and of the rows a thread holds at once, are in flight together.
template <class K>
__device__ __forceinline__ Part part_of(const AggSpec& s, int64_t row) {
  const bool mask_false = (s.options & OPT_MASK_FALSE) != 0;
  const bool in_mask =
      s.mask_bits == nullptr || (bit_at(s.mask_validity, row) & (bit_at(s.mask_bits, row) != mask_false));
  const Part none = identity_of(K::op());
  Part p = none;
  if constexpr (K::op() == AGG_COUNT_ALL) {
    p.count = in_mask;
  } else {
    bool valid = bit_at(s.validity, row);
    int64_t factor[MAX_FACTORS] = {0, 0};
#pragma unroll
    for (int f = 0; f < K::factors(); f++) {
      valid &= bit_at(s.factor_validity[f], row);
      factor[f] = reinterpret_cast<const int64_t*>(s.factor_data[f])[row];
    }
    if constexpr (K::op() == AGG_SUM && K::floating()) {
      p.fsum = read_double(K::input(), s.data, row);
    } else if constexpr (K::op() == AGG_SUM && K::factors() > 0) {
      p.sum = int192_product(read_int(K::input(), s.data, row), factor[0], K::factors() > 1 ? &factor[1] : nullptr);
    } else if constexpr (K::op() == AGG_SUM && K::input() == L_INT128) {
      const uint64_t* v = reinterpret_cast<const uint64_t*>(s.data) + 2 * row;
      p.sum = int192_from128(v[0], static_cast<int64_t>(v[1]));
    } else if constexpr (K::op() == AGG_SUM) {
      p.sum = int192_from64(read_int(K::input(), s.data, row));
    } else if constexpr (K::op() == AGG_MIN || K::op() == AGG_MAX) {
      p.best = K::floating() ? double_key(read_double(K::input(), s.data, row)) : read_int(K::input(), s.data, row);
    }
    const bool take = in_mask & valid;
    p.count = take;
    p.flags = take ? FLAG_SEEN : in_mask && (s.options & OPT_NULL_POISONS) ? FLAG_POISONED : 0;
#pragma unroll
    for (int i = 0; i < 3; i++) p.sum.w[i] = take ? p.sum.w[i] : 0;
    p.fsum = take ? p.fsum : 0.0;
    p.best = take ? p.best : none.best;
  }
  return p;
}

// Two parts of one group and aggregate of kind K as one, in the fields the kind uses.
template <class K>
__device__ __forceinline__ Part merge(Part a, const Part& b) {
  if constexpr (K::counts()) {
    a.count += b.count;
  } else if constexpr (K::op() == AGG_SUM && K::floating()) {
    a.fsum += b.fsum;
  } else if constexpr (K::op() == AGG_SUM) {
    a.sum = int192_add(a.sum, b.sum);
  } else if constexpr (K::op() == AGG_MIN) {
    a.best = min(a.best, b.best);
  } else {
    a.best = max(a.best, b.best);
  }
  if constexpr (K::op() != AGG_COUNT_ALL) a.flags |= b.flags;
  return a;
}

// Adds a part to group g's accumulator of an aggregate of kind K (shared or global memory: the same atomics serve
// both).
template <class K>
__device__ __forceinline__ void apply(unsigned long long* acc, uint32_t* flags, int64_t g, const Part& p) {
  if constexpr (K::counts()) {
    if (p.count != 0) atomicAdd(acc + g, p.count);
  } else if constexpr (K::op() == AGG_SUM && K::floating()) {
    if (p.flags & FLAG_SEEN) atomicAdd(reinterpret_cast<double*>(acc) + g, p.fsum);
  } else if constexpr (K::op() == AGG_SUM) {
    if (p.flags & FLAG_SEEN) atomic_add192(acc + 3 * g, p.sum);
  } else if constexpr (K::op() == AGG_MIN) {
    if (p.flags & FLAG_SEEN) atomicMin(reinterpret_cast<long long*>(acc) + g, p.best);
  } else {
    if (p.flags & FLAG_SEEN) atomicMax(reinterpret_cast<long long*>(acc) + g, p.best);
  }
  // read first: once a group's flags are set, its later rows cost no atomic
  if (p.flags != 0 && (flags[g] & p.flags) != p.flags) atomicOr(flags + g, p.flags);
}

__device__ __forceinline__ void init_acc(const AggSpec& s, unsigned long long* acc, uint32_t* flags, int64_t g) {
  const unsigned long long v = s.op == AGG_MIN ? static_cast<unsigned long long>(INT64_MAX)
                               : s.op == AGG_MAX ? static_cast<unsigned long long>(INT64_MIN) : 0ull;
  for (int i = 0; i < acc_words(s); i++) acc[acc_words(s) * g + i] = v;
  flags[g] = 0;
}

// The part an accumulator holds.
__device__ __forceinline__ Part held(const AggSpec& s, const unsigned long long* acc, const uint32_t* flags,
                                     int64_t g) {
  Part p = identity(s);
  p.flags = flags[g];
  if (s.op == AGG_SUM && !sums_floating(s)) {
    p.sum = {{acc[3 * g], acc[3 * g + 1], acc[3 * g + 2]}};
  } else if (s.op == AGG_SUM) {
    p.fsum = reinterpret_cast<const double*>(acc)[g];
  } else if (s.op == AGG_MIN || s.op == AGG_MAX) {
    p.best = static_cast<int64_t>(acc[g]);
  } else {
    p.count = acc[g];
  }
  return p;
}

}  // namespace agg
}  // namespace sparkwarp
