// The two hash tables of the hash join, both holding "tagged rows": a build row id in the low 32 bits and the high
// 32 bits of its key hash (the tag) in the high bits, so most non-matching candidates are rejected without reading
// the build keys. The bucket is hash & mask (the low bits).
//  - Unique-key table: open addressing with linear probing over a power-of-two slot array, EMPTY where free.
//  - Multi-match table: bucket offsets (exclusive prefix sums of the bucket lengths, one more than buckets) and the
//    tagged rows of each bucket contiguous in `entries`, so a probe row's candidates are one range.
// Host twin: io.sparkwarp.kernels.host.HostJoinKernels.
#pragma once
#include <cstdint>

namespace sparkwarp {

constexpr uint64_t EMPTY_SLOT = 0xFFFFFFFFFFFFFFFFull;  // row id 0xFFFFFFFF never occurs

__device__ __forceinline__ uint64_t tagged_row(uint64_t hash, int64_t row) {
  return (hash & 0xFFFFFFFF00000000ull) | static_cast<uint32_t>(row);
}

__device__ __forceinline__ int32_t tagged_row_id(uint64_t entry) { return static_cast<int32_t>(entry & 0xFFFFFFFFu); }

__device__ __forceinline__ bool tag_matches(uint64_t entry, uint64_t hash) {
  return (entry >> 32) == (hash >> 32);
}

// Marks row `row` in a bitmap (nullptr: not tracked); reads first so repeated matches of a row cost no atomics.
__device__ __forceinline__ void mark_matched(uint32_t* bits, int64_t row) {
  if (bits == nullptr) return;
  const uint32_t bit = 1u << (row & 31);
  uint32_t* word = bits + (row >> 5);
  if ((*reinterpret_cast<volatile uint32_t*>(word) & bit) == 0) atomicOr(word, bit);
}

}  // namespace sparkwarp
