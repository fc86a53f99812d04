// Parquet's DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY values of one page, located by one warp.
// DELTA_LENGTH_BYTE_ARRAY: the values' lengths (DELTA_BINARY_PACKED), then their bytes end to end.
// DELTA_BYTE_ARRAY: how many leading bytes each value shares with the one before (DELTA_BINARY_PACKED), then the
// rest of each value, its suffix, as DELTA_LENGTH_BYTE_ARRAY.
// These find where each value's (suffix) bytes lie in the page and check every length against the page and the value
// before; the bytes are the caller's to copy. Reads never leave [src, src + len).
#pragma once
#include <cstdint>
#include "delta_binary_packed.cuh"
#include "parquet_status.cuh"
#include "warp.cuh"

namespace sparkwarp {

// Decodes `count` non-negative 32-bit lengths (what parquet-mr's writer stores them as: the low 32 bits of the sums)
// from src[pos, len) into lengths[i]; *pos moves past them. Status on every lane.
__device__ __forceinline__ int32_t delta_lengths_warp(const uint8_t* src, int64_t len, int64_t* pos, int64_t count,
                                                      int32_t* lengths) {
  bool bad = false;
  int64_t used = 0;
  const int32_t err = delta_binary_packed_decode_warp(src + *pos, len - *pos, count, [&](int64_t i, uint64_t v) {
    const int32_t n = static_cast<int32_t>(v);
    bad |= n < 0;
    lengths[i] = n;
  }, &used);
  if (err != PQ_OK) return err;
  if (__any_sync(FULL_WARP, bad)) return PQ_BAD_LENGTH;
  *pos += used;
  __syncwarp();  // other lanes read the lengths next
  return PQ_OK;
}

// The `count` values of a DELTA_LENGTH_BYTE_ARRAY stream at src[*pos, len): lengths[i], and starts[i] the offset
// from src of value i's first byte; *pos ends after the last value's bytes. Status on every lane.
__device__ __forceinline__ int32_t delta_length_byte_array_warp(const uint8_t* src, int64_t len, int64_t* pos,
                                                                int64_t count, int32_t* lengths, int32_t* starts) {
  const int32_t err = delta_lengths_warp(src, len, pos, count, lengths);
  if (err != PQ_OK) return err;
  int64_t at = *pos;
  for (int64_t base = 0; base < count; base += 32) {
    const int64_t i = base + lane_id();
    const int64_t n = i < count ? lengths[i] : 0;
    const int64_t sum = warp_inclusive_sum(n);
    if (i < count) starts[i] = static_cast<int32_t>(at + sum - n);  // meaningless past len, which fails below
    at += __shfl_sync(FULL_WARP, sum, 31);
  }
  if (at > len) return PQ_TRUNCATED;
  *pos = at;
  return PQ_OK;
}

// The `count` values of a DELTA_BYTE_ARRAY stream at src[pos, len): prefixes[i], the bytes value i shares with
// value i - 1; lengths[i], value i's whole length; starts[i], the offset from src of its suffix. A prefix is never
// longer than the value before it, and the first value's is 0: each page decodes alone (the writers of parquet-mr
// before 1.8 carried the last value over to the next page, PARQUET-246: such a page is reported, not misread).
// Status on every lane.
__device__ __forceinline__ int32_t delta_byte_array_warp(const uint8_t* src, int64_t len, int64_t pos, int64_t count,
                                                         int32_t* prefixes, int32_t* lengths, int32_t* starts) {
  int32_t err = delta_lengths_warp(src, len, &pos, count, prefixes);
  if (err == PQ_OK) err = delta_length_byte_array_warp(src, len, &pos, count, lengths, starts);
  if (err != PQ_OK) return err;
  const int lane = lane_id();
  int64_t before = 0;  // the length of the value before the tile's first
  bool bad = false;
  for (int64_t base = 0; base < count; base += 32) {
    const int64_t i = base + lane;
    const int64_t prefix = i < count ? prefixes[i] : 0;
    const int64_t whole = i < count ? prefix + lengths[i] : 0;
    const int64_t up = __shfl_up_sync(FULL_WARP, whole, 1);
    bad |= i < count && prefix > (lane == 0 ? before : up);
    // no longer than the suffixes so far, which the page holds: fits 32 bits unless bad
    if (i < count) lengths[i] = static_cast<int32_t>(whole);
    const int64_t in_tile = count - base < 32 ? count - base : 32;
    before = __shfl_sync(FULL_WARP, whole, static_cast<int>(in_tile - 1));
  }
  return __any_sync(FULL_WARP, bad) ? PQ_BAD_LENGTH : PQ_OK;
}

}  // namespace sparkwarp
