// Unsigned LEB128 varints (Snappy's preamble, Parquet's RLE run headers), read with a bound. Every lane that calls
// this with the same arguments reads the same bytes, so a warp parsing a shared header stays converged.
#pragma once
#include <cstdint>
#include "parquet_status.cuh"

namespace sparkwarp {

// Reads the varint at src[*pos] (pos < len) of at most ceil(max_bits / 7) bytes, advancing *pos; returns PQ_OK,
// PQ_TRUNCATED or PQ_BAD_HEADER (longer).
__device__ __forceinline__ int32_t read_varint_of(const uint8_t* src, int64_t len, int64_t* pos, uint64_t* value,
                                                  int max_bits) {
  uint64_t v = 0;
  for (int shift = 0; shift < max_bits; shift += 7) {
    if (*pos >= len) return PQ_TRUNCATED;
    const uint8_t b = src[(*pos)++];
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) {
      *value = v;
      return PQ_OK;
    }
  }
  return PQ_BAD_HEADER;
}

// A varint of Snappy's preamble or Parquet's RLE run headers: more than 35 bits is corrupt (none needs that many).
__device__ __forceinline__ int32_t read_varint(const uint8_t* src, int64_t len, int64_t* pos, uint64_t* value) {
  return read_varint_of(src, len, pos, value, 35);
}

// A 64-bit varint (DELTA_BINARY_PACKED's values and deltas: up to 10 bytes).
__device__ __forceinline__ int32_t read_uleb64(const uint8_t* src, int64_t len, int64_t* pos, uint64_t* value) {
  return read_varint_of(src, len, pos, value, 70);
}

// Little-endian unsigned value of `n` <= 8 bytes.
__device__ __forceinline__ uint64_t load_le(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int k = 0; k < n; k++) v |= static_cast<uint64_t>(p[k]) << (8 * k);
  return v;
}

// Bits [bit, bit + width) of src, least significant first (Parquet's bit packing), reading only the bytes they span
// (width <= 64).
__device__ __forceinline__ uint64_t unpack_bits(const uint8_t* src, int64_t bit, int width) {
  if (width == 0) return 0;
  const uint8_t* p = src + (bit >> 3);
  const int shift = static_cast<int>(bit & 7);
  const int bytes = (shift + width + 7) >> 3;  // at most 9
  uint64_t v = load_le(p, bytes < 8 ? bytes : 8) >> shift;
  if (bytes == 9) v |= static_cast<uint64_t>(p[8]) << (64 - shift);
  return width == 64 ? v : v & ((1ull << width) - 1);
}

}  // namespace sparkwarp
