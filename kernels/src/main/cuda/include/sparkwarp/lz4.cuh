// LZ4 decompression by one warp: Parquet's LZ4_RAW (one LZ4 block) and LZ4 (Hadoop's framing of LZ4 blocks, which
// parquet-mr writes). Parsed and written like Snappy (snappy.cuh): 32 sequences a round from the register window
// (lz_window.cuh), each lane decoding the sequence that would start at its window bytes and pointer doubling finding
// the real ones, then lz_round.cuh writing each sequence's literals and resolving its back-reference.
//
// A sequence (lz4 block format): a token (literal length in its high nibble, match length - 4 in its low one; 15
// continues in bytes of 255 until one below), its literals, a 2-byte little-endian offset, the match length's bytes.
// The block's last sequence has literals alone and ends the block. A sequence whose token, length bytes or offset do
// not lie in the window ends the round's chain; when it is the round's first (long literals, long length runs), the
// warp parses it alone from global memory, 32 length bytes a step.
//
// Every read stays inside [src, src + src_len) and every write inside the output given.
#pragma once
#include <cstdint>
#include "lz_round.cuh"
#include "lz_window.cuh"
#include "parquet_status.cuh"
#include "warp.cuh"

namespace sparkwarp {

// Length bytes a window candidate reads per length (2 reach 524 bytes, past the window anyway).
constexpr int LZ4_WINDOW_LENGTH_BYTES = 2;

// A sequence, offsets from its window's first byte. In the window they are small (lengths of at most
// LZ4_WINDOW_LENGTH_BYTES length bytes), so 32 bits each keep the 64 candidates of a round in fewer registers.
struct Lz4Sequence {
  int32_t lit_at;        // its literals
  int32_t lit_length;
  int32_t match_length;  // 0 for the block's last sequence
  uint32_t offset;
  int32_t end;           // after its last byte
  bool in_window;        // whether its token, length bytes and offset lie in the window (its literals need not)
};

// Adds the length bytes at window offset *q to *length when `extended` (a nibble of 15), advancing *q; clears
// *in_window when they run past LZ4_WINDOW_LENGTH_BYTES or the window. Every lane calls it.
__device__ __forceinline__ void lz4_window_length(const LzWindow& window, bool extended, int* q, int32_t* length,
                                                  bool* in_window) {
  bool more = extended;
#pragma unroll
  for (int k = 0; k < LZ4_WINDOW_LENGTH_BYTES; k++) {
    const bool inside = *q < LZ_WINDOW;
    const uint8_t b = window.byte(inside ? *q : 0);
    if (more && inside) {
      *length += b;
      (*q)++;
      more = b == 255;
    } else if (more) {
      *in_window = false;
      more = false;
    }
  }
  if (more) *in_window = false;
}

// The sequence that would start at window byte j, whose token is `token`; `remaining`: the stream's bytes from the
// window's first on. Every lane calls it.
__device__ __forceinline__ Lz4Sequence lz4_candidate(const LzWindow& window, uint32_t token, int j,
                                                     int64_t remaining) {
  Lz4Sequence s;
  s.in_window = true;
  int q = j + 1;
  int32_t literals = static_cast<int32_t>(token >> 4);
  lz4_window_length(window, literals == 15, &q, &literals, &s.in_window);
  s.lit_at = q;
  s.lit_length = literals;
  const int32_t lit_end = q + literals;
  const bool offset_inside = lit_end + 2 <= LZ_WINDOW;
  const int at = offset_inside ? static_cast<int>(lit_end) : 0;
  s.offset = window.byte(at) | (static_cast<uint32_t>(window.byte(at + 1)) << 8);
  int m = offset_inside ? at + 2 : LZ_WINDOW;
  int32_t match = static_cast<int32_t>(token & 15);
  bool match_inside = offset_inside;
  lz4_window_length(window, offset_inside && match == 15, &m, &match, &match_inside);
  if (lit_end == remaining) {  // the last sequence
    s.match_length = 0;
    s.end = lit_end;
  } else {
    s.match_length = match + 4;
    s.end = m;
    s.in_window = s.in_window && match_inside;
  }
  return s;
}

// Adds the length bytes at src[*q] (a nibble of 15 came before) to *length, 32 bytes a step, advancing *q past them;
// every lane calls it with the same arguments. PQ_TRUNCATED when the stream ends inside them.
__device__ __forceinline__ int32_t lz4_read_length(const uint8_t* src, int64_t len, int64_t* q, int64_t* length) {
  for (;;) {
    const int64_t at = *q + lane_id();
    const uint32_t b = at < len ? src[at] : 0u;
    const uint32_t stops = __ballot_sync(FULL_WARP, at >= len || b != 255);
    if (stops == 0) {
      *length += 255 * 32;
      *q += 32;
      continue;
    }
    const int first = __ffs(stops) - 1;
    if (*q + first >= len) return PQ_TRUNCATED;
    *length += 255 * first + __shfl_sync(FULL_WARP, b, first);
    *q += first + 1;
    return PQ_OK;
  }
}

// The sequence at src[pos] (pos < len) parsed by the whole warp from global memory into *e (lit_at from pos) and
// *end (bytes from pos); every lane calls it with the same arguments and gets the same sequence. Checks as
// lz4_sequence_error.
__device__ int32_t lz4_sequence_at(const uint8_t* src, int64_t len, int64_t pos, LzElement* e, int64_t* end) {
  const uint32_t token = src[pos];
  int64_t q = pos + 1;
  int64_t literals = token >> 4;
  if (literals == 15 && lz4_read_length(src, len, &q, &literals) != PQ_OK) return PQ_TRUNCATED;
  e->lit_at = q - pos;
  e->lit_length = literals;
  if (literals > len - q) return PQ_TRUNCATED;
  q += literals;
  if (q == len) {  // the last sequence
    e->match_length = 0;
    e->offset = 0;
    *end = q - pos;
    return PQ_OK;
  }
  if (q + 2 > len) return PQ_TRUNCATED;
  e->offset = src[q] | (static_cast<uint32_t>(src[q + 1]) << 8);
  q += 2;
  int64_t match = token & 15;
  if (match == 15 && lz4_read_length(src, len, &q, &match) != PQ_OK) return PQ_TRUNCATED;
  e->match_length = match + 4;
  *end = q - pos;
  if (q >= len) return PQ_TRUNCATED;  // no last sequence
  return e->offset == 0 ? PQ_BAD_OFFSET : PQ_OK;
}

// What is wrong with a sequence starting `remaining` bytes before the stream's end (offsets from its window's first
// byte), or PQ_OK: bytes past the end, a block that does not end with literals alone, a zero offset.
__device__ __forceinline__ int32_t lz4_sequence_error(const Lz4Sequence& s, int64_t remaining) {
  if (s.lit_at + s.lit_length > remaining) return PQ_TRUNCATED;
  if (s.match_length > 0 && s.end >= remaining) return PQ_TRUNCATED;
  if (s.match_length > 0 && s.offset == 0) return PQ_BAD_OFFSET;
  return PQ_OK;
}

// Decompresses one LZ4 block into at most dst_capacity bytes at dst, *produced of them; all 32 lanes call it with the
// same arguments. `ring` is the warp's own `ring_bytes` of shared memory (lz_round_warp). An empty stream is an
// empty block. Returns the status on every lane.
__device__ int32_t lz4_block_warp(const uint8_t* __restrict__ src, int64_t src_len, uint8_t* __restrict__ dst,
                                  int64_t dst_capacity, uint8_t* ring, int32_t ring_bytes, int64_t* produced) {
  const int lane = lane_id();
  int64_t pos = 0;
  int64_t out = 0;
  LzWindow window = LzWindow::load(src, src_len, pos);
  while (pos < src_len) {
    const int64_t remaining = src_len - pos;
    const int64_t limit = remaining < LZ_STARTS ? remaining : LZ_STARTS;
    const Lz4Sequence low = lz4_candidate(window, window.w0, lane, remaining);
    const Lz4Sequence high = lz4_candidate(window, window.w1, lane + 32, remaining);
    LzElement element;
    int64_t consumed;
    if (__shfl_sync(FULL_WARP, static_cast<int>(low.in_window), 0)) {
      // sequences start only below `limit`; one that would end past it, or reach outside the window, ends the chain
      const int next_lo = low.in_window && low.end < limit ? static_cast<int>(low.end) : LZ_STARTS;
      const int next_hi =
          lane + 32 < limit && high.in_window && high.end < limit ? static_cast<int>(high.end) : LZ_STARTS;
      const int start = lz_element_start(next_lo, next_hi);
      const int from = start < limit ? start : 0;
      Lz4Sequence s;  // every lane shuffles
      s.lit_at = lz_pick(low.lit_at, high.lit_at, from);
      s.lit_length = lz_pick(low.lit_length, high.lit_length, from);
      s.match_length = lz_pick(low.match_length, high.match_length, from);
      s.offset = lz_pick(low.offset, high.offset, from);
      s.end = lz_pick(low.end, high.end, from);
      s.in_window = lz_pick(static_cast<int>(low.in_window), static_cast<int>(high.in_window), from) != 0;
      const bool has = start < limit && s.in_window;  // lane 0's sequence always
      // checks in sequence order: the first bad sequence's status, as a serial decoder would report it
      const int32_t bad = has ? lz4_sequence_error(s, remaining) : PQ_OK;
      const uint32_t bad_lanes = __ballot_sync(FULL_WARP, bad != PQ_OK);
      if (bad_lanes != 0) return __shfl_sync(FULL_WARP, bad, __ffs(bad_lanes) - 1);
      const int last = __popc(__ballot_sync(FULL_WARP, has)) - 1;  // sequences are lanes 0..last
      consumed = __shfl_sync(FULL_WARP, has ? s.end : 0, last);
      element = {has, s.lit_at, s.lit_length, s.match_length, s.offset};
    } else {  // the first sequence reaches past the window: parsed alone
      const int32_t err = lz4_sequence_at(src, src_len, pos, &element, &consumed);
      if (err != PQ_OK) return err;
      element.has = lane == 0;
    }
    // the next round's window, loaded now so its latency hides behind this round's copies
    const int64_t next = pos + consumed;
    const LzWindow ahead = LzWindow::load(src, src_len, next);
    const int32_t err = lz_round_warp(src, pos, window, element, dst, dst_capacity, &out, ring, ring_bytes);
    if (err != PQ_OK) return err;
    pos = next;
    window = ahead;
  }
  *produced = out;
  return PQ_OK;
}

// Parquet's LZ4_RAW: one LZ4 block of exactly dst_len bytes.
__device__ int32_t lz4_raw_decompress_warp(const uint8_t* __restrict__ src, int64_t src_len,
                                           uint8_t* __restrict__ dst, int64_t dst_len, uint8_t* ring,
                                           int32_t ring_bytes) {
  int64_t produced = 0;
  const int32_t err = lz4_block_warp(src, src_len, dst, dst_len, ring, ring_bytes, &produced);
  if (err != PQ_OK) return err;
  return produced == dst_len ? PQ_OK : PQ_SIZE_MISMATCH;
}

__device__ __forceinline__ int64_t load_be32(const uint8_t* p) {
  return (static_cast<int64_t>(p[0]) << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
}

// Parquet's LZ4 as parquet-mr writes it (Hadoop's BlockCompressorStream) into exactly dst_len bytes: blocks of a
// 4-byte big-endian output length, then LZ4 blocks of a 4-byte big-endian stored length each until that output is
// made (a page past Hadoop's buffer is one block of several, and a block of length 0 follows it).
__device__ int32_t lz4_hadoop_decompress_warp(const uint8_t* __restrict__ src, int64_t src_len,
                                              uint8_t* __restrict__ dst, int64_t dst_len, uint8_t* ring,
                                              int32_t ring_bytes) {
  int64_t pos = 0;
  int64_t out = 0;
  while (pos < src_len) {
    if (src_len - pos < 4) return PQ_TRUNCATED;
    const int64_t block = load_be32(src + pos);
    pos += 4;
    if (block > dst_len - out) return PQ_OVERRUN;
    const int64_t block_end = out + block;
    while (out < block_end) {
      if (src_len - pos < 4) return PQ_TRUNCATED;
      const int64_t stored = load_be32(src + pos);
      pos += 4;
      if (stored > src_len - pos) return PQ_TRUNCATED;
      int64_t produced = 0;
      const int32_t err = lz4_block_warp(src + pos, stored, dst + out, block_end - out, ring, ring_bytes, &produced);
      if (err != PQ_OK) return err;
      out += produced;
      pos += stored;
    }
  }
  return out == dst_len ? PQ_OK : PQ_SIZE_MISMATCH;
}

}  // namespace sparkwarp
