// Snappy decompression of one block by one warp, Gompresso-style (notes/sitaridi-strings-gompresso.md, 3.2): the
// element stream is parsed 32 elements per round from a register window of the stream (lz_window.cuh), each lane
// owning one (a literal run or a back-reference), and the round is written by lz_round.cuh: literals at once,
// back-references by Multi-Round Resolution from a shared-memory ring of recent output.
//
// What bounds a warp is latency, not bandwidth (a page is one warp's serial chain of rounds): the next round's window
// is loaded before this round's copies, so its latency hides behind them.
//
// Every read stays inside [src, src + src_len) and every write inside [dst, dst + dst_len); the block must declare
// exactly dst_len bytes and produce them.
#pragma once
#include <cstdint>
#include "lz_round.cuh"
#include "lz_window.cuh"
#include "parquet_status.cuh"
#include "varint.cuh"
#include "warp.cuh"

namespace sparkwarp {

// An element as its header declares it.
struct SnappyCandidate {
  int32_t header;   // bytes of its tag and length/offset fields
  bool literal;     // whose bytes follow the header
  int64_t length;   // output bytes
  uint32_t offset;  // copy distance; 0 for a literal
  __device__ int64_t stored() const { return header + (literal ? length : 0); }
};

// The element whose tag is `tag`, the first byte after the tag `b1`, the 4 bytes after it in `after` (little-endian,
// b1 lowest; 0 past the stream).
__device__ __forceinline__ SnappyCandidate snappy_element(uint32_t tag, uint32_t b1, uint64_t after) {
  switch (tag & 3) {
    case 0: {
      const uint32_t n = tag >> 2;
      if (n < 60) return {1, true, static_cast<int64_t>(n) + 1, 0};
      const int bytes = static_cast<int>(n) - 59;  // 60..63: the length - 1 follows in 1 to 4 bytes
      const uint64_t v = bytes == 4 ? after : after & ((1ull << (8 * bytes)) - 1);
      return {1 + bytes, true, static_cast<int64_t>(v) + 1, 0};
    }
    case 1: return {2, false, static_cast<int64_t>(((tag >> 2) & 7) + 4), ((tag >> 5) << 8) | b1};
    case 2: return {3, false, static_cast<int64_t>((tag >> 2) + 1), static_cast<uint32_t>(after & 0xffff)};
    default: return {5, false, static_cast<int64_t>((tag >> 2) + 1), static_cast<uint32_t>(after)};
  }
}

// The element that would start at window byte `lane` of a warp's register window (w0 holds byte `lane`, w1 byte
// `lane + 32`).
__device__ __forceinline__ SnappyCandidate snappy_candidate(uint32_t w0, uint32_t w1) {
  const int lane = lane_id();
  uint32_t next[4];  // the 4 bytes after this lane's tag
#pragma unroll
  for (int k = 0; k < 4; k++) {
    const int at = lane + 1 + k;
    const uint32_t lo = __shfl_sync(FULL_WARP, w0, at & 31);
    const uint32_t hi = __shfl_sync(FULL_WARP, w1, at & 31);
    next[k] = at < 32 ? lo : hi;
  }
  const uint64_t after = next[0] | (next[1] << 8) | (next[2] << 16) | (static_cast<uint64_t>(next[3]) << 24);
  return snappy_element(w0, next[0], after);
}

// One round of the element stream, parsed from the window of src[pos..]: up to 32 elements, lane k holding the k-th.
struct SnappyRound {
  int32_t err;       // the first bad element's status (as a serial decoder would report it), on every lane
  int64_t consumed;  // stream bytes the round's elements take, on every lane
  int32_t start;     // where the lane's element starts, from the window's first byte
  LzElement element;
};

// Parses a round from `window` (src[pos..], `remaining` bytes of stream left); all 32 lanes call it.
__device__ __forceinline__ SnappyRound snappy_parse_round(const LzWindow& window, int64_t remaining) {
  const int lane = lane_id();
  const SnappyCandidate low = snappy_candidate(window.w0, window.w1);   // elements starting at window bytes 0..31
  const SnappyCandidate high = snappy_candidate(window.w1, window.w2);  // and 32..63
  // elements start only below `limit`; one that would end past it ends the chain
  const int64_t limit = remaining < LZ_STARTS ? remaining : LZ_STARTS;
  const int64_t end_lo = lane + low.stored();
  const int64_t end_hi = lane + 32 + high.stored();
  const int start = lz_element_start(end_lo < limit ? static_cast<int>(end_lo) : LZ_STARTS,
                                     lane + 32 < limit && end_hi < limit ? static_cast<int>(end_hi) : LZ_STARTS);
  const bool has = start < limit;  // lane 0's element always starts at 0
  const int from = has ? start : 0;
  const int32_t header = lz_pick(low.header, high.header, from);
  const bool literal = lz_pick(static_cast<int>(low.literal), static_cast<int>(high.literal), from) != 0;
  const int64_t picked = lz_pick(low.length, high.length, from);  // every lane shuffles
  const int64_t length = has ? picked : 0;
  const uint32_t offset = lz_pick(low.offset, high.offset, from);
  // checks in element order: the first bad element's status, as a serial decoder would report it
  int32_t bad = PQ_OK;
  if (has && start + header > remaining) {
    bad = PQ_TRUNCATED;
  } else if (has && !literal && offset == 0) {
    bad = PQ_BAD_OFFSET;
  } else if (has && literal && start + header + length > remaining) {
    bad = PQ_TRUNCATED;
  }
  SnappyRound round;
  const uint32_t bad_lanes = __ballot_sync(FULL_WARP, bad != PQ_OK);
  round.err = bad_lanes == 0 ? PQ_OK : __shfl_sync(FULL_WARP, bad, __ffs(bad_lanes) - 1);
  const int last = __popc(__ballot_sync(FULL_WARP, has)) - 1;  // elements are lanes 0..last
  round.consumed = __shfl_sync(FULL_WARP, has ? start + header + (literal ? length : 0) : 0, last);
  round.start = from;
  round.element = LzElement{has, start + header, literal ? length : 0, literal ? 0 : length, offset};
  return round;
}

// Decodes Snappy elements src[pos, src_len) (no preamble there) into exactly dst_len bytes at dst; all 32 lanes call
// it with the same arguments. `ring` is the warp's own `ring_bytes` (a power of two, at least 4096) of shared memory.
// Returns the status on every lane.
__device__ int32_t snappy_decode_elements(const uint8_t* __restrict__ src, int64_t src_len, int64_t pos,
                                          uint8_t* __restrict__ dst, int64_t dst_len, uint8_t* ring,
                                          int32_t ring_bytes) {
  int64_t out = 0;
  LzWindow window = LzWindow::load(src, src_len, pos);
  while (pos < src_len) {
    const SnappyRound round = snappy_parse_round(window, src_len - pos);
    if (round.err != PQ_OK) return round.err;
    // the next round's window, loaded now so its latency hides behind this round's copies
    const int64_t next = pos + round.consumed;
    const LzWindow ahead = LzWindow::load(src, src_len, next);
    const int32_t err = lz_round_warp(src, pos, window, round.element, dst, dst_len, &out, ring, ring_bytes);
    if (err != PQ_OK) return err;
    pos = next;
    window = ahead;
  }
  return out == dst_len ? PQ_OK : PQ_SIZE_MISMATCH;
}

// Snappy's preamble: the varint of the output size, which must be dst_len; *pos is left at the first element.
__device__ __forceinline__ int32_t snappy_preamble(const uint8_t* src, int64_t src_len, int64_t dst_len,
                                                   int64_t* pos) {
  uint64_t declared;
  const int32_t err = read_varint(src, src_len, pos, &declared);
  if (err != PQ_OK) return err;
  return static_cast<int64_t>(declared) == dst_len ? PQ_OK : PQ_SIZE_MISMATCH;
}

// Decompresses one Snappy block; all 32 lanes call it with the same arguments. `ring` as snappy_decode_elements's.
// Returns the status on every lane.
__device__ int32_t snappy_decompress_warp(const uint8_t* __restrict__ src, int64_t src_len, uint8_t* __restrict__ dst,
                                          int64_t dst_len, uint8_t* ring, int32_t ring_bytes) {
  int64_t pos = 0;
  const int32_t err = snappy_preamble(src, src_len, dst_len, &pos);
  if (err != PQ_OK) return err;
  return snappy_decode_elements(src, src_len, pos, dst, dst_len, ring, ring_bytes);
}

}  // namespace sparkwarp
