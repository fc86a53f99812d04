// Snappy blocks decoded by many warps, a warp per 64 KiB fragment of output instead of one warp per block. Google's
// compressor (which snappy-java wraps, so every Snappy page parquet-mr writes) compresses its input in independent
// fragments of 64 KiB (kBlockSize): a fragment's elements start where the previous fragment's end, and none reads
// output from before its fragment. A page of parquet-mr's 1 MiB is then 16 chains of rounds instead of one, which is
// what bounds a warp (snappy.cuh: latency, not bandwidth).
//
// A split pass, a thread block a Snappy block, parses the element stream without writing output and notes,
// at every multiple of 64 KiB of output where an element starts, where in the stream it starts. Each fragment is then
// decoded by a warp of its own as a stream of its own, so a copy reaching before its fragment's start is caught as a
// bad offset. Nothing trusts the compressor: a block the split cannot parse, or a fragment that fails for any reason
// (another compressor's copies across fragments, or damage), goes whole to one warp, which decodes or reports it as
// it would have without the split.
#pragma once
#include <cstdint>
#include "block_chain.cuh"
#include "block_scan.cuh"
#include "parquet_status.cuh"
#include "snappy.cuh"

namespace sparkwarp {

// Output bytes of a fragment (io.sparkwarp.kernels.parquet.SnappyFragments.FRAGMENT_BYTES); a power of two.
constexpr int64_t SNAPPY_FRAGMENT_BYTES = 65536;

// Block statuses between the launches, never read back by the host (which sees only DecodeStatus values, written by
// the last launch): after the split, a block of several fragments is decoded by its fragments' warps, or by one warp.
constexpr int32_t SNAPPY_BY_FRAGMENTS = -1;
constexpr int32_t SNAPPY_BY_WARP = -2;

// Slots of a block of dst_len output bytes: one per fragment.
__device__ __forceinline__ int64_t snappy_fragment_slots(int64_t dst_len) {
  return (dst_len + SNAPPY_FRAGMENT_BYTES - 1) / SNAPPY_FRAGMENT_BYTES;
}

// Compressed bytes the split holds in shared memory at once (loaded together, then parsed window by window).
constexpr int SNAPPY_SPLIT_STAGE = 4096;

// The split's shared memory, one a block.
struct SnappySplitScratch {
  BlockChainScratch chain;
  uint8_t stage[SNAPPY_SPLIT_STAGE];
  int64_t warp_sums[BLOCK_CHAIN_THREADS / 32];
  int64_t window_sums;  // the window's elements: output bytes << 20 | bad elements << 10 | elements
  int64_t window_end;   // where the window's last element ends, from the window's start
};

// The split of a Snappy block of exactly dst_len output bytes: slot i of its `slots` gets the stream offset of the
// element that starts at output i * SNAPPY_FRAGMENT_BYTES, or -1 where an element runs across that point. Returns
// whether the block parsed cleanly to dst_len bytes (if not, the slots mean nothing). The whole block parses
// (block_chain.cuh): up to blockDim.x elements a step from a window of 2 * blockDim.x stream bytes, where a warp's
// round takes 32 (a 1 MiB page of sorted keys holds 250,000 elements of 2 bytes).
// Every thread of the block calls it with the same arguments.
__device__ bool snappy_split_fragments(const uint8_t* __restrict__ src, int64_t src_len, int64_t dst_len,
                                       int64_t* slot_source, int64_t slots, SnappySplitScratch& s) {
  int64_t pos = 0;
  if (snappy_preamble(src, src_len, dst_len, &pos) != PQ_OK) return false;
  for (int64_t i = threadIdx.x; i < slots; i += blockDim.x) slot_source[i] = i == 0 ? pos : -1;
  const int threads = static_cast<int>(blockDim.x);
  const int window = 2 * threads;
  const int t = static_cast<int>(threadIdx.x);
  int64_t out = 0;
  int64_t staged = -SNAPPY_SPLIT_STAGE;  // stream offset of s.stage[0]: nothing staged yet
  while (pos < src_len) {
    if (pos + window + 4 > staged + SNAPPY_SPLIT_STAGE) {  // a window and the 4 bytes after its last tag
      __syncthreads();
      staged = pos;
      for (int i = t; i < SNAPPY_SPLIT_STAGE; i += threads) s.stage[i] = staged + i < src_len ? src[staged + i] : 0;
    }
    const int64_t remaining = src_len - pos;
    const int limit = remaining < window ? static_cast<int>(remaining) : window;  // elements start only below it
    const uint8_t* w = s.stage + (pos - staged);
    const auto element = [&](int at) {
      return snappy_element(w[at], w[at + 1], w[at + 1] | (w[at + 2] << 8) | (w[at + 3] << 16) |
                                                   (static_cast<uint64_t>(w[at + 4]) << 24));
    };
    // block_chain_start's first __syncthreads also orders the stage's loads before these reads
    const auto end_of = [&](int at) -> int64_t { return at < limit ? at + element(at).stored() : window; };
    const int start = block_chain_start(end_of(t), end_of(t + threads), s.chain);
    const bool has = start < limit;
    const SnappyCandidate e = element(has ? start : 0);
    const int64_t end = start + e.stored();
    const bool bad = has && (start + e.header > remaining || end > remaining || (!e.literal && e.offset == 0));
    const int64_t mine = has ? (e.length << 20) | (static_cast<int64_t>(bad) << 10) | 1 : 0;
    const int64_t before = block_exclusive_sum(mine, s.warp_sums);
    const int64_t at = out + (before >> 20);
    if (has && !bad && at > 0 && at < dst_len && (at & (SNAPPY_FRAGMENT_BYTES - 1)) == 0) {
      slot_source[at / SNAPPY_FRAGMENT_BYTES] = pos + start;
    }
    if (t == threads - 1) s.window_sums = before + mine;
    if (has && end >= limit) s.window_end = end;  // the last element: no other starts before the limit
    __syncthreads();
    const int64_t sums = s.window_sums;
    if (((sums >> 10) & 1023) != 0) return false;
    out += sums >> 20;
    if (out > dst_len) return false;
    pos += s.window_end;
  }
  return out == dst_len;
}

// Decodes fragment `index` of a block split by snappy_split_fragments (its `slots` slot sources): the elements from
// its slot's source to the next fragment's (or the block's end) into their output. Nothing to do (PQ_OK) where no
// element starts at its slot: the fragment before it runs on. All 32 lanes call it; `ring` as snappy.cuh's.
__device__ int32_t snappy_decode_fragment(const uint8_t* __restrict__ src, int64_t src_len, uint8_t* __restrict__ dst,
                                          int64_t dst_len, const int64_t* slot_source, int64_t slots, int64_t index,
                                          uint8_t* ring, int32_t ring_bytes) {
  const int64_t begin = slot_source[index];
  if (begin < 0) return PQ_OK;
  int64_t next = index + 1;
  while (next < slots && slot_source[next] < 0) next++;
  const int64_t end = next < slots ? slot_source[next] : src_len;
  const int64_t out_begin = index * SNAPPY_FRAGMENT_BYTES;
  const int64_t out_end = next < slots ? next * SNAPPY_FRAGMENT_BYTES : dst_len;
  return snappy_decode_elements(src + begin, end - begin, 0, dst + out_begin, out_end - out_begin, ring, ring_bytes);
}

}  // namespace sparkwarp
