// Byte-parallel tests on the words strings are read in (SIMD within a register): one test of the four bytes of a
// 32-bit word costs three logic ops instead of four byte steps.
#pragma once
#include <cstdint>

namespace sparkwarp {

// The high bit of every byte of `word` equal to the byte in `broadcast` (that byte in all four), and possibly of a
// byte just above one that is (the classic has-zero test: the borrow out of a zero byte can flag the next), all other
// bits clear. Cheaper than an exact test, for filters whose candidates are checked anyway.
__device__ __forceinline__ uint32_t bytes_match_hint(uint32_t word, uint32_t broadcast) {
  const uint32_t x = word ^ broadcast;
  return (x - 0x01010101u) & ~x & 0x80808080u;
}

// The index of the lowest byte whose high bit is set in a non-zero mask of byte high bits.
__device__ __forceinline__ int first_marked_byte(uint64_t marks) { return (__ffsll(static_cast<long long>(marks)) - 1) >> 3; }

}  // namespace sparkwarp
