// Snappy decompression of one block by one warp, Gompresso-style (notes/sitaridi-strings-gompresso.md, 3.2): the
// element stream is parsed 32 elements per round, each lane owning one (a literal run or a back-reference); a warp
// prefix sum of their output lengths places them; literals are copied at once; back-references are resolved by
// Multi-Round Resolution: a copy runs as soon as the bytes it reads lie below the high-water mark (the end of the
// gap-free output written so far), and every step the mark moves to the first still-pending lane, so at least one
// copy resolves per step and the loop ends.
//
// What bounds a warp is latency, not bandwidth (a page is one warp's serial chain of rounds), so every step avoids a
// trip to global memory:
// - Parse: the warp holds a 96-byte window of the stream in registers (three bytes per lane), each lane decodes the
//   element that would start at its own bytes, and the real element starts are found by pointer doubling over the
//   window's 64 candidate starts (log steps of shuffles instead of one hop per element). The next round's window is
//   loaded before this round's copies, so its latency hides behind them.
// - Short literals come from the window registers, each lane writing its own; long ones are copied by the warp.
// - The last `ring_bytes` of output are mirrored in a per-warp ring in shared memory: a back-reference reads its
//   source there (sorted keys make chains of copies 8 bytes back, one per step) unless the source is older than the
//   ring or the round too wide to keep the ring exact, when it reads the output in global memory.
//
// Every read stays inside [src, src + src_len) and every write inside [dst, dst + dst_len); the block must declare
// exactly dst_len bytes and produce them.
#pragma once
#include <cstdint>
#include "parquet_status.cuh"
#include "varint.cuh"
#include "warp.cuh"

namespace sparkwarp {

// Window bytes the parse may start elements in (the window holds 32 more, for headers and short literals).
constexpr int SNAPPY_STARTS = 64;
constexpr int SNAPPY_WINDOW = 96;
// Literals of at most this many bytes inside the window are written lane-parallel.
constexpr int SNAPPY_SHORT_LITERAL = 16;

// The element that would start at window byte `lane` (w0 holds byte `lane`, w1 byte `lane + 32` of a window).
struct SnappyCandidate {
  int32_t header;   // bytes of its tag and length/offset fields
  bool literal;     // whose bytes follow the header
  int64_t length;   // output bytes
  uint32_t offset;  // copy distance; 0 for a literal
  __device__ int64_t stored() const { return header + (literal ? length : 0); }
};

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
  const uint32_t tag = w0;
  const uint64_t after = next[0] | (next[1] << 8) | (next[2] << 16) | (static_cast<uint64_t>(next[3]) << 24);
  switch (tag & 3) {
    case 0: {
      const uint32_t n = tag >> 2;
      if (n < 60) return {1, true, static_cast<int64_t>(n) + 1, 0};
      const int bytes = static_cast<int>(n) - 59;  // 60..63: the length - 1 follows in 1 to 4 bytes
      const uint64_t v = bytes == 4 ? after : after & ((1ull << (8 * bytes)) - 1);
      return {1 + bytes, true, static_cast<int64_t>(v) + 1, 0};
    }
    case 1: return {2, false, static_cast<int64_t>(((tag >> 2) & 7) + 4), ((tag >> 5) << 8) | next[0]};
    case 2: return {3, false, static_cast<int64_t>((tag >> 2) + 1), static_cast<uint32_t>(after & 0xffff)};
    default: return {5, false, static_cast<int64_t>((tag >> 2) + 1), static_cast<uint32_t>(after)};
  }
}

// The value lane `at & 31` holds in `lo` (at < 32) or `hi` (at >= 32); every lane calls it.
template <typename T>
__device__ __forceinline__ T snappy_pick(T lo, T hi, int at) {
  const T l = __shfl_sync(FULL_WARP, lo, at & 31);
  const T h = __shfl_sync(FULL_WARP, hi, at & 31);
  return at < 32 ? l : h;
}

// Window byte q (< SNAPPY_WINDOW) from the three window registers; every lane calls it.
__device__ __forceinline__ uint8_t snappy_window_byte(uint32_t w0, uint32_t w1, uint32_t w2, int q) {
  const uint32_t b0 = __shfl_sync(FULL_WARP, w0, q & 31);
  const uint32_t b1 = __shfl_sync(FULL_WARP, w1, q & 31);
  const uint32_t b2 = __shfl_sync(FULL_WARP, w2, q & 31);
  return static_cast<uint8_t>(q < 32 ? b0 : q < 64 ? b1 : b2);
}

// Window offset where lane k's element starts (k-th element of the round), or SNAPPY_STARTS when the round has fewer
// than k + 1 elements: elements start only below min(SNAPPY_STARTS, remaining). next_lo/next_hi: for window byte
// lane / lane + 32, where the element starting there would end (saturated to SNAPPY_STARTS). Pointer doubling: jump[j]
// is 2^j hops; lane k then takes the hops of the bits of k.
__device__ __forceinline__ int snappy_element_start(int next_lo, int next_hi) {
  int jump_lo[5], jump_hi[5];
  jump_lo[0] = next_lo;
  jump_hi[0] = next_hi;
#pragma unroll
  for (int j = 1; j < 5; j++) {
    const int via_lo = snappy_pick(jump_lo[j - 1], jump_hi[j - 1], jump_lo[j - 1]);
    const int via_hi = snappy_pick(jump_lo[j - 1], jump_hi[j - 1], jump_hi[j - 1]);
    jump_lo[j] = jump_lo[j - 1] >= SNAPPY_STARTS ? SNAPPY_STARTS : via_lo;
    jump_hi[j] = jump_hi[j - 1] >= SNAPPY_STARTS ? SNAPPY_STARTS : via_hi;
  }
  const int k = lane_id();
  int at = 0;
#pragma unroll
  for (int j = 0; j < 5; j++) {
    const int hop = snappy_pick(jump_lo[j], jump_hi[j], at);
    if ((k >> j) & 1) at = at >= SNAPPY_STARTS ? SNAPPY_STARTS : hop;
  }
  return at;
}

// Copies a back-reference with the whole warp: bytes [at - offset, at - offset + length) to [at, at + length), from
// the ring when `from_ring`, else from the output. When the ranges overlap (offset < length) the source repeats with
// period `offset`, so byte i is at - offset + i % offset, which lies before `at`: every byte reads only what was
// written before the copy.
__device__ __forceinline__ void snappy_copy_warp(uint8_t* dst, uint8_t* ring, uint32_t ring_mask, int64_t at,
                                                 int64_t length, int64_t offset, bool from_ring) {
  const int64_t base = at - offset;
  for (int64_t i = lane_id(); i < length; i += 32) {
    const int64_t from = base + (offset >= length ? i : static_cast<int64_t>(static_cast<uint32_t>(i) %
                                                                             static_cast<uint32_t>(offset)));
    const uint8_t b = from_ring ? ring[from & ring_mask] : dst[from];
    ring[(at + i) & ring_mask] = b;
    dst[at + i] = b;
  }
}

// Decompresses one Snappy block; all 32 lanes call it with the same arguments. `ring` is the warp's own
// `ring_bytes` (a power of two, at least 4096) of shared memory. Returns the status on every lane.
__device__ int32_t snappy_decompress_warp(const uint8_t* __restrict__ src, int64_t src_len, uint8_t* __restrict__ dst,
                                          int64_t dst_len, uint8_t* ring, int32_t ring_bytes) {
  const int lane = lane_id();
  const uint32_t ring_mask = static_cast<uint32_t>(ring_bytes) - 1;
  int64_t pos = 0;
  uint64_t declared;
  int32_t err = read_varint(src, src_len, &pos, &declared);
  if (err != PQ_OK) return err;
  if (static_cast<int64_t>(declared) != dst_len) return PQ_SIZE_MISMATCH;
  int64_t out = 0;
  uint32_t w0 = pos + lane < src_len ? src[pos + lane] : 0u;
  uint32_t w1 = pos + 32 + lane < src_len ? src[pos + 32 + lane] : 0u;
  uint32_t w2 = pos + 64 + lane < src_len ? src[pos + 64 + lane] : 0u;
  while (pos < src_len) {
    const int64_t remaining = src_len - pos;
    const SnappyCandidate low = snappy_candidate(w0, w1);   // elements starting at window bytes 0..31
    const SnappyCandidate high = snappy_candidate(w1, w2);  // and 32..63
    // elements start only below `limit`; one that would end past it ends the chain
    const int64_t limit = remaining < SNAPPY_STARTS ? remaining : SNAPPY_STARTS;
    const int64_t end_lo = lane + low.stored();
    const int64_t end_hi = lane + 32 + high.stored();
    const int start = snappy_element_start(end_lo < limit ? static_cast<int>(end_lo) : SNAPPY_STARTS,
                                           lane + 32 < limit && end_hi < limit ? static_cast<int>(end_hi)
                                                                              : SNAPPY_STARTS);
    const bool has = start < limit;  // lane 0's element always starts at 0
    const int from = has ? start : 0;
    const int32_t header = snappy_pick(low.header, high.header, from);
    const bool literal = snappy_pick(static_cast<int>(low.literal), static_cast<int>(high.literal), from) != 0;
    const int64_t picked = snappy_pick(low.length, high.length, from);  // every lane shuffles
    const int64_t length = has ? picked : 0;
    const uint32_t offset = snappy_pick(low.offset, high.offset, from);
    // checks in element order: the first bad element's status, as a serial decoder would report it
    int32_t bad = PQ_OK;
    if (has && start + header > remaining) {
      bad = PQ_TRUNCATED;
    } else if (has && !literal && offset == 0) {
      bad = PQ_BAD_OFFSET;
    } else if (has && literal && start + header + length > remaining) {
      bad = PQ_TRUNCATED;
    }
    const uint32_t bad_lanes = __ballot_sync(FULL_WARP, bad != PQ_OK);
    if (bad_lanes != 0) return __shfl_sync(FULL_WARP, bad, __ffs(bad_lanes) - 1);
    const uint32_t elements = __ballot_sync(FULL_WARP, has);
    const int last = __popc(elements) - 1;  // elements are lanes 0..last
    const int64_t consumed = __shfl_sync(FULL_WARP, has ? start + header + (literal ? length : 0) : 0, last);
    const int64_t end = warp_inclusive_sum(length);
    const int64_t at = out + end - length;
    const int64_t round_end = out + __shfl_sync(FULL_WARP, end, 31);
    if (round_end > dst_len) return PQ_OVERRUN;
    if (__any_sync(FULL_WARP, has && !literal && offset > at)) return PQ_BAD_OFFSET;
    // the next round's window, loaded now so its latency hides behind this round's copies
    const int64_t next = pos + consumed;
    const uint32_t n0 = next + lane < src_len ? src[next + lane] : 0u;
    const uint32_t n1 = next + 32 + lane < src_len ? src[next + 32 + lane] : 0u;
    const uint32_t n2 = next + 64 + lane < src_len ? src[next + 64 + lane] : 0u;
    // literals: short ones inside the window by their own lanes, byte j of every one at once; long ones by the warp
    const int lit_at = start + header;  // window offset of a literal's bytes
    const bool short_literal = has && literal && length <= SNAPPY_SHORT_LITERAL && lit_at + length <= SNAPPY_WINDOW;
    const int short_bytes = static_cast<int>(__reduce_max_sync(FULL_WARP, short_literal ? static_cast<uint32_t>(length) : 0u));
    for (int j = 0; j < short_bytes; j++) {
      const uint8_t b = snappy_window_byte(w0, w1, w2, short_literal ? lit_at + j : 0);
      if (short_literal && j < length) {
        ring[(at + j) & ring_mask] = b;
        dst[at + j] = b;
      }
    }
    for (uint32_t longs = __ballot_sync(FULL_WARP, has && literal && !short_literal); longs != 0;
         longs &= longs - 1) {
      const int owner = __ffs(longs) - 1;
      const int64_t from_src = pos + __shfl_sync(FULL_WARP, lit_at, owner);
      const int64_t to = __shfl_sync(FULL_WARP, at, owner);
      const int64_t n = __shfl_sync(FULL_WARP, length, owner);
      for (int64_t i = lane; i < n; i += 32) {
        const uint8_t b = src[from_src + i];
        ring[(to + i) & ring_mask] = b;
        dst[to + i] = b;
      }
    }
    __syncwarp();
    // Multi-Round Resolution: every copy whose source lies below the high-water mark runs; the copies of one step
    // read only below the mark and write only above it, so they need no ordering among themselves. A round no
    // wider than the ring writes each of its bytes to a slot of its own, so the ring holds every byte from
    // round_end - ring_bytes on.
    const bool narrow = round_end - out <= ring_bytes;
    bool pending = has && !literal;
    for (uint32_t votes = __ballot_sync(FULL_WARP, pending); votes != 0; votes = __ballot_sync(FULL_WARP, pending)) {
      const int64_t high_water = __shfl_sync(FULL_WARP, at, __ffs(votes) - 1);
      const int64_t read_end = at - offset + length;
      const bool ready = pending && (read_end < at ? read_end : at) <= high_water;
      for (uint32_t copies = __ballot_sync(FULL_WARP, ready); copies != 0; copies &= copies - 1) {
        const int owner = __ffs(copies) - 1;
        const int64_t c_at = __shfl_sync(FULL_WARP, at, owner);
        const int64_t c_offset = __shfl_sync(FULL_WARP, static_cast<int64_t>(offset), owner);
        snappy_copy_warp(dst, ring, ring_mask, c_at, __shfl_sync(FULL_WARP, length, owner), c_offset,
                         narrow && c_at - c_offset >= round_end - ring_bytes);
      }
      if (ready) pending = false;
      __syncwarp();
    }
    if (!narrow) {  // bytes of this round may share ring slots: refill the ring from the output
      const int64_t first = round_end - ring_bytes > 0 ? round_end - ring_bytes : 0;
      for (int64_t p = first + lane; p < round_end; p += 32) ring[p & ring_mask] = dst[p];
      __syncwarp();
    }
    out = round_end;
    pos = next;
    w0 = n0;
    w1 = n1;
    w2 = n2;
  }
  return out == dst_len ? PQ_OK : PQ_SIZE_MISMATCH;
}

}  // namespace sparkwarp
