// A block's own accumulators of every aggregate (aggregate_parts.cuh) in shared memory: `copies` copies of each of
// `groups` groups, copy c of group g at slot g * copies + c; aggregate k's accumulators at words(k), then every
// aggregate's flag words, groups x copies x sum(acc_words x 8 + 4) bytes in all. A block starts them (start), adds
// its rows to them, and at its end adds them to the global accumulators (flush): the copies of a group merged, one
// atomic per group and aggregate. aggregate.cu's few-groups accumulation kernels use them.
#pragma once
#include <cstdint>

#include "sparkwarp/aggregate_parts.cuh"

namespace sparkwarp {
namespace agg {

struct BlockAccumulators {
  unsigned long long* words;  // the block's dynamic shared memory
  uint32_t* flag_words;       // after every aggregate's accumulators
  int64_t groups;
  int32_t copies;

  __device__ int64_t slots() const { return groups * copies; }

  // Aggregate k's accumulators.
  __device__ unsigned long long* acc(const AggSpecs& specs, int k) const {
    int64_t at = 0;
    for (int j = 0; j < k; j++) at += slots() * acc_words(specs.spec[j]);
    return words + at;
  }

  __device__ uint32_t* flags(int k) const { return flag_words + k * slots(); }

  // The accumulators laid out in `shared`.
  __device__ static BlockAccumulators at(const AggSpecs& specs, unsigned long long* shared, int64_t groups,
                                         int32_t copies) {
    BlockAccumulators b{shared, nullptr, groups, copies};
    int64_t words = 0;
    for (int k = 0; k < specs.count; k++) words += b.slots() * acc_words(specs.spec[k]);
    b.flag_words = reinterpret_cast<uint32_t*>(shared + words);
    return b;
  }

  // The accumulators laid out in `shared`, started at the aggregates' identities. Ends with a block barrier.
  __device__ static BlockAccumulators start(const AggSpecs& specs, unsigned long long* shared, int64_t groups,
                                            int32_t copies) {
    const BlockAccumulators b = at(specs, shared, groups, copies);
    for (int64_t i = threadIdx.x; i < b.slots() * specs.count; i += blockDim.x) {
      const int k = static_cast<int>(i / b.slots());
      init_acc(specs.spec[k], b.acc(specs, k), b.flags(k), i % b.slots());
    }
    __syncthreads();
    return b;
  }

  // Adds every group's copies, merged, to the global accumulators. Begins with a block barrier.
  __device__ void flush(const AggSpecs& specs) const {
    __syncthreads();
    for (int64_t i = threadIdx.x; i < groups * specs.count; i += blockDim.x) {
      const int k = static_cast<int>(i / groups);
      const int64_t g = i % groups;
      const AggSpec& s = specs.spec[k];
      with_kind(s, [&](auto kind) {
        using K = decltype(kind);
        Part p = identity(s);
        for (int c = 0; c < copies; c++) p = merge<K>(p, held(s, acc(specs, k), flags(k), g * copies + c));
        apply<K>(s.acc, s.flags, g, p);
      });
    }
  }
};

}  // namespace agg
}  // namespace sparkwarp
