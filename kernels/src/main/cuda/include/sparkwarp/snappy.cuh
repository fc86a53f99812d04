// Snappy decompression of one block by one warp, Gompresso-style (notes/sitaridi-strings-gompresso.md, 3.2): the
// element stream is parsed 32 elements per round, each lane owning one (a literal run or a back-reference); a warp
// prefix sum of their output lengths places them; literals are copied at once (short ones by their lane, long ones
// by the whole warp); back-references are resolved by Multi-Round Resolution: a copy runs as soon as the bytes it
// reads lie below the high-water mark (the end of the gap-free output written so far), and every round the mark
// moves to the first still-pending lane, so at least one copy resolves per round and the loop ends.
//
// The parse itself is serial (an element's length depends on its tag), but every lane runs it in lockstep over the
// same bytes (broadcast reads) and lane k keeps element k, so no lane waits on shared memory or diverges.
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

// Parses the element at src[*pos], advancing *pos. Same result on every lane.
__device__ __forceinline__ int32_t snappy_parse(const uint8_t* src, int64_t len, int64_t* pos, SnappyElement* e) {
  const uint8_t tag = src[*pos];
  switch (tag & 3) {
    case 0: {
      int64_t n = tag >> 2;
      int64_t p = *pos + 1;
      if (n >= 60) {
        const int bytes = static_cast<int>(n) - 59;  // 60..63: the length - 1 follows in 1 to 4 bytes
        if (p + bytes > len) return PQ_TRUNCATED;
        n = static_cast<int64_t>(load_le(src + p, bytes));
        p += bytes;
      }
      e->length = n + 1;
      e->offset = 0;
      e->source = p;
      if (p + e->length > len) return PQ_TRUNCATED;
      *pos = p + e->length;
      return PQ_OK;
    }
    case 1:
      if (*pos + 2 > len) return PQ_TRUNCATED;
      e->length = ((tag >> 2) & 7) + 4;
      e->offset = (static_cast<int64_t>(tag >> 5) << 8) | src[*pos + 1];
      *pos += 2;
      break;
    case 2:
      if (*pos + 3 > len) return PQ_TRUNCATED;
      e->length = (tag >> 2) + 1;
      e->offset = static_cast<int64_t>(load_le(src + *pos + 1, 2));
      *pos += 3;
      break;
    default:
      if (*pos + 5 > len) return PQ_TRUNCATED;
      e->length = (tag >> 2) + 1;
      e->offset = static_cast<int64_t>(load_le(src + *pos + 1, 4));
      *pos += 5;
      break;
  }
  e->source = 0;
  return e->offset == 0 ? PQ_BAD_OFFSET : PQ_OK;
}

// Copies a back-reference: bytes [at - offset, at - offset + length) to [at, at + length). When the ranges overlap
// (offset < length) the source repeats with period `offset`, so byte i is dst[at - offset + i % offset] in any order.
__device__ __forceinline__ void snappy_copy(uint8_t* dst, int64_t at, int64_t length, int64_t offset) {
  const uint8_t* from = dst + at - offset;
  if (offset >= length) {
    for (int64_t i = 0; i < length; i++) dst[at + i] = from[i];
  } else {
    for (int64_t i = 0; i < length; i++) dst[at + i] = from[i % offset];
  }
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
    SnappyElement mine{0, 0, 0};
    for (int k = 0; k < 32 && pos < src_len; k++) {
      SnappyElement e;
      err = snappy_parse(src, src_len, &pos, &e);
      if (err != PQ_OK) return err;
      if (lane == k) mine = e;
    }
    const int64_t end = warp_inclusive_sum(mine.length);
    const int64_t at = out + end - mine.length;
    const int64_t round_end = out + __shfl_sync(FULL_WARP, end, 31);
    if (round_end > dst_len) return PQ_OVERRUN;
    if (__any_sync(FULL_WARP, mine.offset > at)) return PQ_BAD_OFFSET;
    // literals: each lane its own when short, the whole warp one at a time when long
    const bool literal = mine.length > 0 && mine.offset == 0;
    if (literal && mine.length <= 32) {
      for (int64_t i = 0; i < mine.length; i++) dst[at + i] = src[mine.source + i];
    }
    for (uint32_t longs = __ballot_sync(FULL_WARP, literal && mine.length > 32); longs != 0; longs &= longs - 1) {
      const int owner = __ffs(longs) - 1;
      const int64_t from = __shfl_sync(FULL_WARP, mine.source, owner);
      const int64_t to = __shfl_sync(FULL_WARP, at, owner);
      const int64_t n = __shfl_sync(FULL_WARP, mine.length, owner);
      for (int64_t i = lane; i < n; i += 32) dst[to + i] = src[from + i];
    }
    __syncwarp();
    // Multi-Round Resolution of this round's back-references
    bool pending = mine.offset > 0;
    for (uint32_t votes = __ballot_sync(FULL_WARP, pending); votes != 0; votes = __ballot_sync(FULL_WARP, pending)) {
      const int64_t high_water = __shfl_sync(FULL_WARP, at, __ffs(votes) - 1);
      const int64_t read_end = at - mine.offset + mine.length;
      if (pending && (read_end < at ? read_end : at) <= high_water) {
        snappy_copy(dst, at, mine.length, mine.offset);
        pending = false;
      }
      __syncwarp();
    }
    out = round_end;
  }
  return out == dst_len ? PQ_OK : PQ_SIZE_MISMATCH;
}

}  // namespace sparkwarp
