// The parse side of the warp LZ77 decoders (snappy.cuh, lz4.cuh), Gompresso-style (notes/sitaridi-strings-gompresso.md,
// 3.2): the warp holds a 96-byte window of the compressed stream in registers (three bytes per lane), each lane
// decodes the element that would start at its own window bytes, and the real element starts are found by pointer
// doubling over the window's 64 candidate starts (log steps of shuffles instead of one hop per element). A window
// byte is a shuffle, not a trip to global memory.
#pragma once
#include <cstdint>
#include "warp.cuh"

namespace sparkwarp {

// Window bytes elements may start in (the window holds 32 more, for headers and short literals).
constexpr int LZ_STARTS = 64;
constexpr int LZ_WINDOW = 96;

// The value lane `at & 31` holds in `lo` (at < 32) or `hi` (at >= 32); every lane calls it.
template <typename T>
__device__ __forceinline__ T lz_pick(T lo, T hi, int at) {
  const T l = __shfl_sync(FULL_WARP, lo, at & 31);
  const T h = __shfl_sync(FULL_WARP, hi, at & 31);
  return at < 32 ? l : h;
}

// LZ_WINDOW bytes of a stream from `pos` on, byte lane + 32 * k in lane `lane`'s wk (0 past the stream's end), and the
// three packed in one word so that any window byte is one shuffle.
struct LzWindow {
  uint32_t w0, w1, w2;
  uint32_t packed;  // w0 | w1 << 8 | w2 << 16

  __device__ static LzWindow load(const uint8_t* src, int64_t len, int64_t pos) {
    const int lane = lane_id();
    const uint32_t b0 = pos + lane < len ? src[pos + lane] : 0u;
    const uint32_t b1 = pos + 32 + lane < len ? src[pos + 32 + lane] : 0u;
    const uint32_t b2 = pos + 64 + lane < len ? src[pos + 64 + lane] : 0u;
    return {b0, b1, b2, b0 | (b1 << 8) | (b2 << 16)};
  }

  // Window byte q (< LZ_WINDOW), each lane its own q; every lane calls it.
  __device__ __forceinline__ uint8_t byte(int q) const {
    return static_cast<uint8_t>(__shfl_sync(FULL_WARP, packed, q & 31) >> (8 * (q >> 5)));
  }
};

// Window offset where lane k's element starts (the k-th element of the round), or LZ_STARTS when the round has fewer
// than k + 1 elements; element 0 starts at 0. next_lo/next_hi: for window byte lane / lane + 32, where the element
// starting there would end, LZ_STARTS where none may follow it. Pointer doubling: jump[j] is 2^j hops; lane k then
// takes the hops of the bits of k.
__device__ __forceinline__ int lz_element_start(int next_lo, int next_hi) {
  int jump_lo[5], jump_hi[5];
  jump_lo[0] = next_lo;
  jump_hi[0] = next_hi;
#pragma unroll
  for (int j = 1; j < 5; j++) {
    const int via_lo = lz_pick(jump_lo[j - 1], jump_hi[j - 1], jump_lo[j - 1]);
    const int via_hi = lz_pick(jump_lo[j - 1], jump_hi[j - 1], jump_hi[j - 1]);
    jump_lo[j] = jump_lo[j - 1] >= LZ_STARTS ? LZ_STARTS : via_lo;
    jump_hi[j] = jump_hi[j - 1] >= LZ_STARTS ? LZ_STARTS : via_hi;
  }
  const int k = lane_id();
  int at = 0;
#pragma unroll
  for (int j = 0; j < 5; j++) {
    const int hop = lz_pick(jump_lo[j], jump_hi[j], at);
    if ((k >> j) & 1) at = at >= LZ_STARTS ? LZ_STARTS : hop;
  }
  return at;
}

}  // namespace sparkwarp
