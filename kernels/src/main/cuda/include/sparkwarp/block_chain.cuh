// Variable-length records (Snappy elements) found by a whole block at once: Gompresso's parallel parse
// (notes/sitaridi-strings-gompresso.md, 3.2; lz_window.cuh does it for a warp's 64 candidate starts) widened to a
// block. In a window of 2 * blockDim.x bytes that begins at a record's start, every byte is a candidate start; each
// thread works out where the records that would start at its two bytes end, and pointer doubling over those ends
// (log2(blockDim.x) steps in shared memory) hands thread k the start of the window's k-th record. Records of at least
// 2 bytes start at most blockDim.x times in a window, so every record of it gets a thread.
#pragma once
#include <cstdint>

namespace sparkwarp {

// The most threads a block that uses it may have (a power of two, as blockDim.x must be).
constexpr int BLOCK_CHAIN_THREADS = 256;
constexpr int BLOCK_CHAIN_LEVELS = 8;  // log2(BLOCK_CHAIN_THREADS)

// jump[l][i]: where the record at window byte i ends after 2^l hops (the window's size when past it).
struct BlockChainScratch {
  uint16_t jump[BLOCK_CHAIN_LEVELS][2 * BLOCK_CHAIN_THREADS];
};

// Where the window's k-th record starts (k = threadIdx.x), or the window's size (2 * blockDim.x) when it has fewer
// than k + 1. end_low / end_high: where a record starting at window byte threadIdx.x / threadIdx.x + blockDim.x would
// end (the window's size or more where none may follow it, for instance past the stream's end). Every thread of the
// block calls it; it starts with a __syncthreads, so the scratch of the last call may still be read until then.
__device__ __forceinline__ int block_chain_start(int64_t end_low, int64_t end_high, BlockChainScratch& s) {
  const int threads = static_cast<int>(blockDim.x);
  const int window = 2 * threads;
  const int t = static_cast<int>(threadIdx.x);
  int levels = 0;
  while ((1 << levels) < threads) levels++;
  __syncthreads();
  s.jump[0][t] = static_cast<uint16_t>(end_low < window ? end_low : window);
  s.jump[0][t + threads] = static_cast<uint16_t>(end_high < window ? end_high : window);
  for (int l = 1; l < levels; l++) {
    __syncthreads();
    for (int i = t; i < window; i += threads) {
      const int via = s.jump[l - 1][i];
      s.jump[l][i] = via >= window ? static_cast<uint16_t>(window) : s.jump[l - 1][via];
    }
  }
  __syncthreads();
  int at = 0;
  for (int l = 0; l < levels && at < window; l++) {
    if ((t >> l) & 1) at = s.jump[l][at];
  }
  return at;
}

}  // namespace sparkwarp
