// Parquet's PLAIN byte arrays of one page (and of a dictionary page), located by one warp: each value is a 4-byte
// little-endian length, then its bytes, so where a value starts is known only once the value before is read.
// The walk stays serial, but reads shared memory: the warp loads the page a window at a time with coalesced word
// loads, and one lane walks the lengths in the window. Walking global memory instead cost a memory latency per value
// (400 ns a value on an H200: 44 ms for a batch's pages of TPC-H's l_comment, the scan's slowest kernel).
// Reads never leave [start, end).
#pragma once
#include <cstdint>
#include "parquet_status.cuh"
#include "warp.cuh"

namespace sparkwarp {

// Words of a warp's window: 4 KiB, a hundred values of TPC-H's comments, so a window's loads are in flight together.
constexpr int PLAIN_WINDOW_WORDS = 1024;
// Warps of a block that walks: io.sparkwarp.kernels.cuda.CudaKernel.BLOCK / 32.
constexpr int PLAIN_WALK_WARPS = 8;

// Walks `count` PLAIN byte arrays from pages[start] to pages[end], recording each one's first byte and length in
// slot s0 + k. Called by the whole warp (a warp of a block of at most PLAIN_WALK_WARPS warps); status on every lane.
__device__ __forceinline__ int32_t plain_byte_array_warp(const uint8_t* pages, int64_t start, int64_t end,
                                                         int64_t count, int32_t* slot_start, int32_t* slot_len,
                                                         int64_t s0) {
  static __shared__ uint32_t windows[PLAIN_WALK_WARPS][PLAIN_WINDOW_WORDS];  // static: one a block on the CPU too
  uint32_t* window = windows[threadIdx.x / 32];
  const int lane = lane_id();
  int64_t p = start;  // the next value's length
  int64_t k = 0;
  int32_t err = PQ_OK;
  while (k < count && err == PQ_OK) {
    // the window: the aligned words from the one holding p on, as far as the page goes
    const int64_t base = p & ~static_cast<int64_t>(3);
    const int64_t words = min(static_cast<int64_t>(PLAIN_WINDOW_WORDS), (end - base + 3) / 4);
    const int64_t window_end = min(end, base + 4 * words);
    __syncwarp();  // lane 0 is done with the window before
    for (int64_t w = lane; w < words; w += 32) {
      const int64_t at = base + 4 * w;
      uint32_t v = 0;
      if (at + 4 <= end) {
        v = *reinterpret_cast<const uint32_t*>(pages + at);
      } else {  // the page's last bytes: none past its end
        for (int64_t b = at; b < end; b++) v |= static_cast<uint32_t>(pages[b]) << (8 * (b - at));
      }
      window[w] = v;
    }
    __syncwarp();
    if (lane == 0) {
      // the window holds the length at p (end >= p + 4 leaves words past it), so each window takes a value or fails
      for (; k < count; k++) {
        if (p + 4 > window_end) {
          if (p + 4 > end) err = PQ_TRUNCATED;
          break;
        }
        const int64_t off = p - base;
        const uint32_t lo = window[off >> 2];
        const uint32_t hi = (off & 3) != 0 ? window[(off >> 2) + 1] : 0;
        const int64_t n = static_cast<int32_t>(__funnelshift_r(lo, hi, static_cast<uint32_t>(8 * (off & 3))));
        if (n < 0) {
          err = PQ_BAD_LENGTH;
          break;
        }
        if (p + 4 + n > end) {
          err = PQ_TRUNCATED;
          break;
        }
        slot_start[s0 + k] = static_cast<int32_t>(p + 4);
        slot_len[s0 + k] = static_cast<int32_t>(n);
        p += 4 + n;
      }
    }
    p = __shfl_sync(FULL_WARP, p, 0);
    k = __shfl_sync(FULL_WARP, k, 0);
    err = __shfl_sync(FULL_WARP, err, 0);
  }
  return err;
}

}  // namespace sparkwarp
