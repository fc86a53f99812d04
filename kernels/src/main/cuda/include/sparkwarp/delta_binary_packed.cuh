// Parquet's DELTA_BINARY_PACKED values of one page, decoded by one warp: a header (values per block, miniblocks per
// block, the value count, the first value), then blocks of a minimum delta, one bit width per miniblock and the
// miniblocks' deltas bit-packed least significant bit first. Each miniblock holds a multiple of 32 values, so the
// warp unpacks 32 deltas at a time, a lane each, and a warp prefix sum turns them into values. Sums wrap in 64 bits,
// which gives an INT32 column's values in the low 32 bits. Every read is bounded by the page.
#pragma once
#include <cstdint>
#include "parquet_status.cuh"
#include "varint.cuh"
#include "warp.cuh"

namespace sparkwarp {

__device__ __forceinline__ uint64_t zigzag_decode(uint64_t n) { return (n >> 1) ^ (0 - (n & 1)); }

// Decodes `count` values from src[0, len), calling emit(i, value) for each (lane i % 32 of the warp). All 32 lanes
// call it with the same arguments; returns the status on every lane. The header's value count must equal `count`.
// *used, when given, receives the bytes the stream took: where what follows it begins (the bytes of
// DELTA_LENGTH_BYTE_ARRAY, the suffixes of DELTA_BYTE_ARRAY).
template <typename Emit>
__device__ int32_t delta_binary_packed_decode_warp(const uint8_t* src, int64_t len, int64_t count, Emit emit,
                                                   int64_t* used = nullptr) {
  int64_t pos = 0;
  uint64_t block_values, miniblocks, total, first;
  int32_t err = read_uleb64(src, len, &pos, &block_values);
  if (err == PQ_OK) err = read_uleb64(src, len, &pos, &miniblocks);
  if (err == PQ_OK) err = read_uleb64(src, len, &pos, &total);
  if (err == PQ_OK) err = read_uleb64(src, len, &pos, &first);
  if (err != PQ_OK) return err;
  if (block_values == 0 || block_values % 128 != 0 || block_values > (1u << 20) || miniblocks == 0
      || block_values % miniblocks != 0 || (block_values / miniblocks) % 32 != 0) {
    return PQ_BAD_HEADER;
  }
  if (static_cast<int64_t>(total) != count) return PQ_SIZE_MISMATCH;
  const int lane = lane_id();
  const int64_t per_miniblock = static_cast<int64_t>(block_values / miniblocks);
  uint64_t last = zigzag_decode(first);
  if (lane == 0 && count > 0) emit(0, last);
  int64_t done = count > 0 ? 1 : 0;
  while (done < count) {
    uint64_t min_delta;
    err = read_uleb64(src, len, &pos, &min_delta);
    if (err != PQ_OK) return err;
    min_delta = zigzag_decode(min_delta);
    const int64_t widths = pos;
    if (pos + static_cast<int64_t>(miniblocks) > len) return PQ_TRUNCATED;
    pos += static_cast<int64_t>(miniblocks);
    for (uint64_t m = 0; m < miniblocks && done < count; m++) {
      const int width = src[widths + m];
      if (width > 64) return PQ_BAD_BIT_WIDTH;
      const int64_t n = count - done < per_miniblock ? count - done : per_miniblock;
      if (pos + (n * width + 7) / 8 > len) return PQ_TRUNCATED;
      for (int64_t base = 0; base < n; base += 32) {
        const int64_t i = base + lane;
        const uint64_t delta = i < n ? min_delta + unpack_bits(src + pos, i * width, width) : 0;
        const uint64_t value = last + warp_inclusive_sum(delta);
        if (i < n) emit(done + i, value);
        const int64_t in_chunk = n - base < 32 ? n - base : 32;
        last = __shfl_sync(FULL_WARP, value, static_cast<int>(in_chunk - 1));
      }
      done += n;
      pos += per_miniblock * width / 8;  // a miniblock is stored whole, padded
    }
  }
  if (used != nullptr) *used = pos;
  return PQ_OK;
}

}  // namespace sparkwarp
