// The resolve side of the warp LZ77 decoders (snappy.cuh, lz4.cuh), Gompresso-style (notes/sitaridi-strings-gompresso.md,
// 3.2): a round is up to 32 parsed elements, a lane each, each a literal run followed by a back-reference (Snappy's
// elements have one of the two, LZ4's sequences both). A warp prefix sum of their output lengths places them;
// literals are copied at once; back-references are resolved by Multi-Round Resolution: a copy runs as soon as the
// bytes it reads lie below the high-water mark (the end of the gap-free output written so far), and every step the
// mark moves to the first still-pending lane, so at least one copy resolves per step and the loop ends.
//
// - Short literals come from the parse window's registers (lz_window.cuh), each lane writing its own; long ones are
//   copied by the warp from the stream.
// - The last `ring_bytes` of output are mirrored in a per-warp ring in shared memory: a back-reference reads its
//   source there (sorted keys make chains of copies 8 bytes back, one per step) unless the source is older than the
//   ring or the round too wide to keep the ring exact, when it reads the output in global memory.
#pragma once
#include <cstdint>
#include "lz_window.cuh"
#include "parquet_status.cuh"
#include "warp.cuh"

namespace sparkwarp {

// Literals of at most this many bytes inside the window are written lane-parallel.
constexpr int LZ_SHORT_LITERAL = 16;

// A lane's element of a round.
struct LzElement {
  bool has;              // whether the lane holds one (the round's elements are lanes 0..k)
  int64_t lit_at;        // where its literal bytes start, from the window's first byte
  int64_t lit_length;    // literal bytes, written first
  int64_t match_length;  // bytes then copied from `offset` back
  uint32_t offset;       // checked non-zero by the parser where match_length > 0
};

// Copies a back-reference with the whole warp: bytes [at - offset, at - offset + length) to [at, at + length), from
// the ring when `from_ring`, else from the output. When the ranges overlap (offset < length) the source repeats with
// period `offset`, so byte i is at - offset + i % offset, which lies before `at`: every byte reads only what was
// written before the copy.
__device__ __forceinline__ void lz_copy_warp(uint8_t* dst, uint8_t* ring, uint32_t ring_mask, int64_t at,
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

// Copies the last ring_bytes of dst[0, end) into the ring with the warp: after output written around it.
__device__ __forceinline__ void lz_refill_ring(const uint8_t* dst, int64_t end, uint8_t* ring, int32_t ring_bytes) {
  const uint32_t ring_mask = static_cast<uint32_t>(ring_bytes) - 1;
  const int64_t first = end - ring_bytes > 0 ? end - ring_bytes : 0;
  for (int64_t p = first + lane_id(); p < end; p += 32) ring[p & ring_mask] = dst[p];
  __syncwarp();
}

// Writes one round's elements at dst[*out..] and advances *out past them; all 32 lanes call it, each with its own
// element. `window` holds src[pos..] (the round's first element starts at pos). `ring` is the warp's own `ring_bytes`
// (a power of two, at least 4096) of shared memory, holding the output's last bytes. Writes stay inside
// [dst, dst + dst_len); returns PQ_OVERRUN or PQ_BAD_OFFSET (a copy from before dst) on every lane, else PQ_OK.
__device__ int32_t lz_round_warp(const uint8_t* __restrict__ src, int64_t pos, const LzWindow& window,
                                 const LzElement& e, uint8_t* __restrict__ dst, int64_t dst_len, int64_t* out,
                                 uint8_t* ring, int32_t ring_bytes) {
  const int lane = lane_id();
  const uint32_t ring_mask = static_cast<uint32_t>(ring_bytes) - 1;
  const int64_t length = e.has ? e.lit_length + e.match_length : 0;
  const int64_t end = warp_inclusive_sum(length);
  const int64_t at = *out + end - length;
  const int64_t copy_at = at + (e.has ? e.lit_length : 0);
  const int64_t round_end = *out + __shfl_sync(FULL_WARP, end, 31);
  if (round_end > dst_len) return PQ_OVERRUN;
  const bool copies = e.has && e.match_length > 0;
  if (__any_sync(FULL_WARP, copies && e.offset > copy_at)) return PQ_BAD_OFFSET;
  // literals: short ones inside the window by their own lanes, byte j of every one at once; long ones by the warp
  const bool literal = e.has && e.lit_length > 0;
  const bool short_literal = literal && e.lit_length <= LZ_SHORT_LITERAL && e.lit_at + e.lit_length <= LZ_WINDOW;
  const int short_bytes =
      static_cast<int>(__reduce_max_sync(FULL_WARP, short_literal ? static_cast<uint32_t>(e.lit_length) : 0u));
  for (int j = 0; j < short_bytes; j++) {
    const uint8_t b = window.byte(short_literal ? static_cast<int>(e.lit_at) + j : 0);
    if (short_literal && j < e.lit_length) {
      ring[(at + j) & ring_mask] = b;
      dst[at + j] = b;
    }
  }
  for (uint32_t longs = __ballot_sync(FULL_WARP, literal && !short_literal); longs != 0; longs &= longs - 1) {
    const int owner = __ffs(longs) - 1;
    const int64_t from = pos + __shfl_sync(FULL_WARP, e.lit_at, owner);
    const int64_t to = __shfl_sync(FULL_WARP, at, owner);
    const int64_t n = __shfl_sync(FULL_WARP, e.lit_length, owner);
    for (int64_t i = lane; i < n; i += 32) {
      const uint8_t b = src[from + i];
      ring[(to + i) & ring_mask] = b;
      dst[to + i] = b;
    }
  }
  __syncwarp();
  // Multi-Round Resolution: every copy whose source lies below the high-water mark runs; the copies of one step
  // read only below the mark and write only above it, so they need no ordering among themselves. A round no wider
  // than the ring writes each of its bytes to a slot of its own, so the ring holds every byte from
  // round_end - ring_bytes on.
  const bool narrow = round_end - *out <= ring_bytes;
  bool pending = copies;
  for (uint32_t votes = __ballot_sync(FULL_WARP, pending); votes != 0; votes = __ballot_sync(FULL_WARP, pending)) {
    const int64_t high_water = __shfl_sync(FULL_WARP, copy_at, __ffs(votes) - 1);
    const int64_t read_end = copy_at - e.offset + e.match_length;
    const bool ready = pending && (read_end < copy_at ? read_end : copy_at) <= high_water;
    for (uint32_t ready_lanes = __ballot_sync(FULL_WARP, ready); ready_lanes != 0; ready_lanes &= ready_lanes - 1) {
      const int owner = __ffs(ready_lanes) - 1;
      const int64_t c_at = __shfl_sync(FULL_WARP, copy_at, owner);
      const int64_t c_offset = __shfl_sync(FULL_WARP, static_cast<int64_t>(e.offset), owner);
      lz_copy_warp(dst, ring, ring_mask, c_at, __shfl_sync(FULL_WARP, e.match_length, owner), c_offset,
                   narrow && c_at - c_offset >= round_end - ring_bytes);
    }
    if (ready) pending = false;
    __syncwarp();
  }
  if (!narrow) lz_refill_ring(dst, round_end, ring, ring_bytes);  // bytes of this round may share ring slots
  *out = round_end;
  return PQ_OK;
}

}  // namespace sparkwarp
