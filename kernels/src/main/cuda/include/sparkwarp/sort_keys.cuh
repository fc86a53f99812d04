// Spark's sort order (SortOrder over every DeviceType.Kind) as unsigned radix digits. A fixed-width value maps to a
// "sortable key" whose unsigned order is Spark's ascending order, read one byte per digit; a string or binary has
// one digit per byte position, the byte plus 1, or 0 past its end, so a proper prefix sorts first (Spark compares
// unsigned bytes). Host twin: io.sparkwarp.kernels.host.HostSortPrimitives.
#pragma once
#include <cstdint>

#include "sparkwarp/expr_program.cuh"

namespace sparkwarp {
namespace sort_keys {

// A sortable key of up to 128 bits; kinds narrower than 128 bits leave the high bits 0.
struct Key {
  uint64_t lo;
  uint64_t hi;
};

constexpr uint64_t SIGN64 = 0x8000000000000000ull;

// SQLOrderingUtil's order as unsigned bits: -0.0 as 0.0 and every NaN as one NaN, which is above +Infinity. Then
// negatives get every bit flipped (a larger magnitude sorts first), non-negatives only the sign bit.
__device__ __forceinline__ uint32_t sortable_float(float f) {
  const uint32_t bits = f == 0.0f ? 0u : (f != f ? 0x7fc00000u : __float_as_uint(f));
  return (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
}

__device__ __forceinline__ uint64_t sortable_double(double d) {
  const uint64_t raw = static_cast<uint64_t>(__double_as_longlong(d));
  const uint64_t bits = d == 0.0 ? 0ull : (d != d ? 0x7ff8000000000000ull : raw);
  return (bits & SIGN64) ? ~bits : bits | SIGN64;
}

// Value i of a fixed-width column of `kind`. Signed integers (decimals' unscaled values too) get their sign bit
// flipped, which turns two's complement order into unsigned order.
__device__ __forceinline__ Key sortable_key(int32_t kind, const uint8_t* data, int64_t i) {
  switch (kind) {
    case expr::KIND_BOOLEAN: return {(reinterpret_cast<const uint32_t*>(data)[i >> 5] >> (i & 31)) & 1u, 0};
    case expr::KIND_BYTE: return {static_cast<uint64_t>(data[i] ^ 0x80u), 0};
    case expr::KIND_SHORT: return {static_cast<uint64_t>(reinterpret_cast<const uint16_t*>(data)[i] ^ 0x8000u), 0};
    case expr::KIND_INT:
    case expr::KIND_DATE: return {static_cast<uint64_t>(reinterpret_cast<const uint32_t*>(data)[i] ^ 0x80000000u), 0};
    case expr::KIND_FLOAT: return {sortable_float(reinterpret_cast<const float*>(data)[i]), 0};
    case expr::KIND_DOUBLE: return {sortable_double(reinterpret_cast<const double*>(data)[i]), 0};
    case expr::KIND_DECIMAL128: {
      const uint64_t* words = reinterpret_cast<const uint64_t*>(data);  // little-endian: low word first
      return {words[2 * i], words[2 * i + 1] ^ SIGN64};
    }
    default:  // LONG, TIMESTAMP, DECIMAL (64-bit unscaled)
      return {reinterpret_cast<const uint64_t*>(data)[i] ^ SIGN64, 0};
  }
}

__device__ __forceinline__ bool is_bytes(int32_t kind) {
  return kind == expr::KIND_STRING || kind == expr::KIND_BINARY;
}

// The largest digit of a pass over a column of `kind` (io.sparkwarp.kernels.sort.SortPrimitives.buckets - 1):
// booleans have 2 digits, strings and binaries 257, the others a byte's 256.
__device__ __forceinline__ int32_t max_digit(int32_t kind) {
  return kind == expr::KIND_BOOLEAN ? 1 : is_bytes(kind) ? 256 : 255;
}

// Digit `byte` (0: the least significant) of a key.
__device__ __forceinline__ int32_t key_digit(Key k, int32_t byte) {
  const uint64_t word = byte < 8 ? k.lo : k.hi;
  return static_cast<int32_t>((word >> (8 * (byte & 7))) & 0xffu);
}

// Digit `position` of string i: its byte there plus 1, or 0 past its end.
__device__ __forceinline__ int32_t string_digit(const uint8_t* data, const int32_t* offsets, int64_t i,
                                                int32_t position) {
  const int32_t start = offsets[i];
  return position < offsets[i + 1] - start ? data[start + position] + 1 : 0;
}

}  // namespace sort_keys
}  // namespace sparkwarp
