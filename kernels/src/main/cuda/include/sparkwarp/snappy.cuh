// Snappy decompression of one block by one warp, Gompresso-style (notes/sitaridi-strings-gompresso.md, 3.2): the
// element stream is parsed 32 elements per round, each lane owning one (a literal run or a back-reference); a warp
// prefix sum of their output lengths places them; literals are copied at once; back-references are resolved by
// Multi-Round Resolution: a copy runs as soon as the bytes it reads lie below the high-water mark (the end of the
// gap-free output written so far), and every step the mark moves to the first still-pending lane, so at least one
// copy resolves per step and the loop ends. Each copy is made by all 32 lanes together (coalesced).
//
// The parse is serial by nature (an element's length depends on its tag), so it is split: the warp loads a 96-byte
// window of the stream (three coalesced bytes per lane), every lane decodes the elements that would start at its own
// bytes of the first 64, and the real elements are then found by hopping from one start to the next with shuffles
// (no memory access), lane k taking the k-th element.
//
// Every read stays inside [src, src + src_len) and every write inside [dst, dst + dst_len); the block must declare
// exactly dst_len bytes and produce them.
#pragma once
#include <cstdint>
#include "parquet_status.cuh"
#include "varint.cuh"
#include "warp.cuh"

namespace sparkwarp {

// A lane's element of the current round: a literal (offset 0) read from src, or a copy of `length` bytes from
// `offset` bytes back in the output.
struct SnappyElement {
  int64_t source;  // literal: position in src
  int64_t length;  // 0 when the lane has no element this round
  int64_t offset;  // copy distance; 0 for a literal
};

// The element that would start at window byte `lane` (w0 holds byte `lane`, w1 byte `lane + 32` of a window): the
// bytes of its header, and its length and offset (0 for a literal, whose bytes follow the header).
struct SnappyCandidate {
  int header;
  int64_t length;
  int64_t offset;
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
      if (n < 60) return {1, static_cast<int64_t>(n) + 1, 0};
      const int bytes = static_cast<int>(n) - 59;  // 60..63: the length - 1 follows in 1 to 4 bytes
      const uint64_t v = bytes == 4 ? after : after & ((1ull << (8 * bytes)) - 1);
      return {1 + bytes, static_cast<int64_t>(v) + 1, 0};
    }
    case 1: return {2, static_cast<int64_t>(((tag >> 2) & 7) + 4), static_cast<int64_t>(((tag >> 5) << 8) | next[0])};
    case 2: return {3, static_cast<int64_t>((tag >> 2) + 1), static_cast<int64_t>(after & 0xffff)};
    default: return {5, static_cast<int64_t>((tag >> 2) + 1), static_cast<int64_t>(after)};
  }
}

// Copies a back-reference with the whole warp: bytes [at - offset, at - offset + length) to [at, at + length). When
// the ranges overlap (offset < length) the source repeats with period `offset`, so byte i is
// dst[at - offset + i % offset], which lies before `at`: every byte reads only what was written before the copy.
__device__ __forceinline__ void snappy_copy_warp(uint8_t* dst, int64_t at, int64_t length, int64_t offset) {
  const uint8_t* from = dst + at - offset;
  for (int64_t i = lane_id(); i < length; i += 32) dst[at + i] = from[offset >= length ? i : i % offset];
}

// Inclusive warp prefix sum of 64-bit values.
__device__ __forceinline__ int64_t warp_inclusive_sum(int64_t v) {
  const int lane = lane_id();
  for (int d = 1; d < 32; d <<= 1) {
    const int64_t other = __shfl_sync(FULL_WARP, v, lane >= d ? lane - d : lane);
    if (lane >= d) v += other;
  }
  return v;
}

// Decompresses one Snappy block; all 32 lanes call it with the same arguments. Returns the status on every lane.
__device__ int32_t snappy_decompress_warp(const uint8_t* src, int64_t src_len, uint8_t* dst, int64_t dst_len) {
  const int lane = lane_id();
  int64_t pos = 0;
  uint64_t declared;
  int32_t err = read_varint(src, src_len, &pos, &declared);
  if (err != PQ_OK) return err;
  if (static_cast<int64_t>(declared) != dst_len) return PQ_SIZE_MISMATCH;
  int64_t out = 0;
  while (pos < src_len) {
    const int64_t remaining = src_len - pos;
    const uint32_t w0 = lane < remaining ? src[pos + lane] : 0u;
    const uint32_t w1 = lane + 32 < remaining ? src[pos + 32 + lane] : 0u;
    const uint32_t w2 = lane + 64 < remaining ? src[pos + 64 + lane] : 0u;
    const SnappyCandidate low = snappy_candidate(w0, w1);   // elements starting at window bytes 0..31
    const SnappyCandidate high = snappy_candidate(w1, w2);  // and 32..63
    SnappyElement mine{0, 0, 0};
    int64_t at_byte = 0;  // window offset of the next element; the hops stay in the first 64 bytes
    for (int k = 0; k < 32 && at_byte < 64 && at_byte < remaining; k++) {
      const int from = static_cast<int>(at_byte) & 31;
      const bool upper = at_byte >= 32;
      const int header = __shfl_sync(FULL_WARP, upper ? high.header : low.header, from);
      const int64_t length = __shfl_sync(FULL_WARP, upper ? high.length : low.length, from);
      const int64_t offset = __shfl_sync(FULL_WARP, upper ? high.offset : low.offset, from);
      const bool literal = (__shfl_sync(FULL_WARP, upper ? w1 : w0, from) & 3) == 0;
      const int64_t stored = literal ? header + length : header;
      if (at_byte + header > remaining) return PQ_TRUNCATED;
      if (!literal && offset == 0) return PQ_BAD_OFFSET;
      if (literal && at_byte + stored > remaining) return PQ_TRUNCATED;
      if (lane == k) mine = {pos + at_byte + header, length, literal ? 0 : offset};
      at_byte += stored;
    }
    pos += at_byte;
    const int64_t end = warp_inclusive_sum(mine.length);
    const int64_t at = out + end - mine.length;
    const int64_t round_end = out + __shfl_sync(FULL_WARP, end, 31);
    if (round_end > dst_len) return PQ_OVERRUN;
    if (__any_sync(FULL_WARP, mine.offset > at)) return PQ_BAD_OFFSET;
    // literals, then the back-references that can be resolved, each copied by the whole warp: consecutive bytes per
    // instruction, so short elements cost one memory transaction rather than one per byte
    for (uint32_t literals = __ballot_sync(FULL_WARP, mine.length > 0 && mine.offset == 0); literals != 0;
         literals &= literals - 1) {
      const int owner = __ffs(literals) - 1;
      const int64_t from = __shfl_sync(FULL_WARP, mine.source, owner);
      const int64_t to = __shfl_sync(FULL_WARP, at, owner);
      const int64_t n = __shfl_sync(FULL_WARP, mine.length, owner);
      for (int64_t i = lane; i < n; i += 32) dst[to + i] = src[from + i];
    }
    __syncwarp();
    // Multi-Round Resolution: every copy whose source lies below the high-water mark runs; the copies of one step
    // read only below the mark and write only above it, so they need no ordering among themselves
    bool pending = mine.offset > 0;
    for (uint32_t votes = __ballot_sync(FULL_WARP, pending); votes != 0; votes = __ballot_sync(FULL_WARP, pending)) {
      const int64_t high_water = __shfl_sync(FULL_WARP, at, __ffs(votes) - 1);
      const int64_t read_end = at - mine.offset + mine.length;
      const bool ready = pending && (read_end < at ? read_end : at) <= high_water;
      for (uint32_t copies = __ballot_sync(FULL_WARP, ready); copies != 0; copies &= copies - 1) {
        const int owner = __ffs(copies) - 1;
        snappy_copy_warp(dst, __shfl_sync(FULL_WARP, at, owner), __shfl_sync(FULL_WARP, mine.length, owner),
                         __shfl_sync(FULL_WARP, mine.offset, owner));
      }
      if (ready) pending = false;
      __syncwarp();
    }
    out = round_end;
  }
  return out == dst_len ? PQ_OK : PQ_SIZE_MISMATCH;
}

}  // namespace sparkwarp
