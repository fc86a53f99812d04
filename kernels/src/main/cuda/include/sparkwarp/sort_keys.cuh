// Spark's sort order (SortOrder over every DeviceType.Kind) as unsigned radix digits. A fixed-width value maps to a
// "sortable key" whose unsigned order is Spark's ascending order, read one byte per digit; a string or binary has
// one digit per byte position, the byte plus 1, or 0 past its end, so a proper prefix sorts first (Spark compares
// unsigned bytes). Host twin: io.sparkwarp.kernels.host.HostSortPrimitives.
#pragma once
#include <cstdint>
#include <type_traits>

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

// Calls f(std::integral_constant<int32_t, K>) with K the kind whose sortable_key reads a column of `kind` (a
// fixed-width kind, not DECIMAL128): a loop over rows inside f then has no switch, so its loads are all in flight
// together, and sortable_key(K::value, ...) folds to one case.
template <typename F>
__device__ __forceinline__ void with_fixed_kind(int32_t kind, F f) {
  switch (kind) {
    case expr::KIND_BOOLEAN: f(std::integral_constant<int32_t, expr::KIND_BOOLEAN>{}); break;
    case expr::KIND_BYTE: f(std::integral_constant<int32_t, expr::KIND_BYTE>{}); break;
    case expr::KIND_SHORT: f(std::integral_constant<int32_t, expr::KIND_SHORT>{}); break;
    case expr::KIND_INT:
    case expr::KIND_DATE: f(std::integral_constant<int32_t, expr::KIND_INT>{}); break;
    case expr::KIND_FLOAT: f(std::integral_constant<int32_t, expr::KIND_FLOAT>{}); break;
    case expr::KIND_DOUBLE: f(std::integral_constant<int32_t, expr::KIND_DOUBLE>{}); break;
    default: f(std::integral_constant<int32_t, expr::KIND_LONG>{}); break;  // LONG, TIMESTAMP, DECIMAL
  }
}

// The sort keys packed into one unsigned 64-bit word a row, whose unsigned order is Spark's order of the rows by
// those keys (io.sparkwarp.kernels.sort.PackedKeys, which plans the fields from the key statistics). Field f holds
// bits [low, low + width) of a valid row's sortable key (complemented when descending; all other bits are the same
// in every valid row, so they cannot order two of them), 0 for a null, at bit `shift` of the word; and, where
// null_flag is set, one bit above them that places the nulls: 0 for the rows that sort first by nullness (nulls
// when nulls_first). The first key's field is the most significant.
struct PackedField {
  const uint8_t* data;
  const uint32_t* validity;  // null where no row is null: no load a row
  int32_t kind;
  int32_t low;
  int32_t width;  // 0 to 64
  int32_t shift;
  int32_t descending;
  int32_t null_flag;
  int32_t nulls_first;
  int32_t unused;
};

constexpr int MAX_PACKED_FIELDS = 8;  // io.sparkwarp.kernels.sort.PackedKeys.MAX_FIELDS

// Passed by value (a __grid_constant__ kernel parameter): io.sparkwarp.kernels.cuda.CudaSortPrimitives lays it out.
struct PackedKeys {
  int32_t count;
  int32_t unused;
  PackedField fields[MAX_PACKED_FIELDS];
};
static_assert(sizeof(PackedField) == 48 && sizeof(PackedKeys) == 392, "CudaSortPrimitives.packedKeys");

// words[k] = the packed word of row first + k * stride, for the rows below end (the others get 0). Field by field,
// so that the loads of one field's rows are in flight together.
template <int ITEMS>
__device__ __forceinline__ void packed_words(const PackedKeys& keys, int64_t first, int stride, int64_t end,
                                             uint64_t (&words)[ITEMS]) {
#pragma unroll
  for (int k = 0; k < ITEMS; k++) words[k] = 0;
  for (int f = 0; f < keys.count; f++) {
    const PackedField& field = keys.fields[f];
    const uint64_t mask = field.width >= 64 ? ~0ull : (1ull << field.width) - 1;
    const uint64_t flip = field.descending ? ~0ull : 0ull;
    const bool values = field.width > 0;  // a key whose valid rows all tie places only its nulls
    with_fixed_kind(field.kind, [&](auto kind) {
#pragma unroll
      for (int k = 0; k < ITEMS; k++) {
        const int64_t i = first + static_cast<int64_t>(k) * stride;
        if (i >= end) continue;
        const bool valid = field.validity == nullptr || ((field.validity[i >> 5] >> (i & 31)) & 1u);
        const uint64_t key = valid && values ? sortable_key(decltype(kind)::value, field.data, i).lo ^ flip : 0;
        uint64_t v = (key >> field.low) & mask;
        if (field.null_flag) v |= static_cast<uint64_t>(valid == (field.nulls_first != 0)) << field.width;
        words[k] |= v << field.shift;
      }
    });
  }
}

// Digit `position` of string i: its byte there plus 1, or 0 past its end.
__device__ __forceinline__ int32_t string_digit(const uint8_t* data, const int32_t* offsets, int64_t i,
                                                int32_t position) {
  const int32_t start = offsets[i];
  return position < offsets[i + 1] - start ? data[start + position] + 1 : 0;
}

}  // namespace sort_keys
}  // namespace sparkwarp
