// Snappy blocks decoded by many warps, a warp per 64 KiB fragment of output instead of one warp per block. Google's
// compressor (which snappy-java wraps, so every Snappy page parquet-mr writes) compresses its input in independent
// fragments of 64 KiB (kBlockSize): a fragment's elements start where the previous fragment's end, and none reads
// output from before its fragment. A page of parquet-mr's 1 MiB is then 16 chains of rounds instead of one, which is
// what bounds a warp (snappy.cuh: latency, not bandwidth).
//
// A split pass, one warp a block, parses the element stream without writing output (snappy_parse_round) and notes,
// at every multiple of 64 KiB of output where an element starts, where in the stream it starts. Each fragment is then
// decoded by a warp of its own as a stream of its own, so a copy reaching before its fragment's start is caught as a
// bad offset. Nothing trusts the compressor: a block the split cannot parse, or a fragment that fails for any reason
// (another compressor's copies across fragments, or damage), goes whole to one warp, which decodes or reports it as
// it would have without the split.
#pragma once
#include <cstdint>
#include "lz_round.cuh"
#include "lz_window.cuh"
#include "parquet_status.cuh"
#include "snappy.cuh"
#include "warp.cuh"

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

// The split of a Snappy block of exactly dst_len output bytes: slot i of its `slots` gets the stream offset of the
// element that starts at output i * SNAPPY_FRAGMENT_BYTES, or -1 where an element runs across that point. Returns
// whether the block parsed cleanly to dst_len bytes (if not, the slots mean nothing); all 32 lanes call it.
__device__ bool snappy_split_fragments(const uint8_t* __restrict__ src, int64_t src_len, int64_t dst_len,
                                       int64_t* slot_source, int64_t slots) {
  int64_t pos = 0;
  if (snappy_preamble(src, src_len, dst_len, &pos) != PQ_OK) return false;
  for (int64_t i = lane_id(); i < slots; i += 32) slot_source[i] = i == 0 ? pos : -1;
  __syncwarp();
  int64_t out = 0;
  LzWindow window = LzWindow::load(src, src_len, pos);
  while (pos < src_len) {
    const SnappyRound round = snappy_parse_round(window, src_len - pos);
    if (round.err != PQ_OK) return false;
    const int64_t next = pos + round.consumed;
    window = LzWindow::load(src, src_len, next);  // issued before this round's bookkeeping, which hides a little
    const LzElement& e = round.element;
    const int64_t length = e.has ? e.lit_length + e.match_length : 0;  // at least 1 byte for every element
    const int64_t end = warp_inclusive_sum(length);
    const int64_t at = out + end - length;
    if (e.has && at > 0 && at < dst_len && (at & (SNAPPY_FRAGMENT_BYTES - 1)) == 0) {
      slot_source[at / SNAPPY_FRAGMENT_BYTES] = pos + round.start;
    }
    out += __shfl_sync(FULL_WARP, end, 31);
    if (out > dst_len) return false;
    pos = next;
  }
  __syncwarp();
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
