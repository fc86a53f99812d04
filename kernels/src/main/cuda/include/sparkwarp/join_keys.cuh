// Join keys: up to MAX_KEY_COLUMNS columns of int32, int64 or bytes (strings, binaries), passed to kernels by value.
// A row is joinable unless a key column that is not null-safe is null there (null never equals null, except under
// Spark's <=>, where null matches null). Equality of byte keys is warp-cooperative: the lanes that need a byte
// comparison are served one at a time, all 32 lanes comparing 32 bytes per step (DogQC's push-down string equality).
// Layout twin: io.sparkwarp.kernels.join.JoinKeys#abi.
#pragma once
#include <cstdint>

#include "sparkwarp/hash.cuh"
#include "sparkwarp/warp.cuh"

namespace sparkwarp {

constexpr int MAX_KEY_COLUMNS = 8;
enum KeyKind : int32_t { KEY_INT32 = 0, KEY_INT64 = 1, KEY_BYTES = 2 };

struct KeyColumn {
  const uint32_t* validity;
  const int32_t* offsets;  // KEY_BYTES only
  const uint8_t* data;
  int32_t kind;
  int32_t null_safe;
};

struct KeyColumns {
  KeyColumn column[MAX_KEY_COLUMNS];
  int32_t count;
};

__device__ __forceinline__ bool key_valid(const KeyColumn& c, int64_t row) {
  return (c.validity[row >> 5] >> (row & 31)) & 1u;
}

__device__ __forceinline__ int64_t key_int(const KeyColumn& c, int64_t row) {
  return c.kind == KEY_INT32 ? static_cast<int64_t>(reinterpret_cast<const int32_t*>(c.data)[row])
                             : reinterpret_cast<const int64_t*>(c.data)[row];
}

__device__ __forceinline__ bool key_joinable(const KeyColumns& keys, int64_t row) {
  bool ok = true;
#pragma unroll
  for (int c = 0; c < MAX_KEY_COLUMNS; c++) {
    if (c < keys.count && !keys.column[c].null_safe) ok = ok && key_valid(keys.column[c], row);
  }
  return ok;
}

__device__ __forceinline__ uint64_t key_hash(const KeyColumns& keys, int64_t row) {
  uint64_t h = 0;
#pragma unroll
  for (int c = 0; c < MAX_KEY_COLUMNS; c++) {
    if (c >= keys.count) break;
    const KeyColumn& k = keys.column[c];
    uint64_t ch;
    if (!key_valid(k, row)) {
      ch = NULL_KEY_HASH;
    } else if (k.kind == KEY_BYTES) {
      const int32_t start = k.offsets[row];
      ch = hash_bytes(k.data + start, k.offsets[row + 1] - start);
    } else {
      ch = hash_int64(key_int(k, row));
    }
    h = hash_combine(h, ch);
  }
  return h;
}

// Equality of one column's values at two rows of two key sets, the bytes compared by this lane alone.
__device__ __forceinline__ bool key_column_equal(const KeyColumn& a, int64_t ra, const KeyColumn& b, int64_t rb) {
  const bool va = key_valid(a, ra);
  const bool vb = key_valid(b, rb);
  if (!va || !vb) return !va && !vb;  // only null-safe columns reach here with nulls
  if (a.kind != KEY_BYTES) return key_int(a, ra) == key_int(b, rb);
  const int32_t sa = a.offsets[ra];
  const int32_t sb = b.offsets[rb];
  const int32_t length = a.offsets[ra + 1] - sa;
  if (length != b.offsets[rb + 1] - sb) return false;
  for (int32_t i = 0; i < length; i++) {
    if (a.data[sa + i] != b.data[sb + i]) return false;
  }
  return true;
}

// One lane's equality test of row ra of `a` with row rb of `b` (both joinable): for divergent code (table builds).
__device__ __forceinline__ bool keys_equal(const KeyColumns& a, int64_t ra, const KeyColumns& b, int64_t rb) {
#pragma unroll
  for (int c = 0; c < MAX_KEY_COLUMNS; c++) {
    if (c >= a.count) break;
    if (!key_column_equal(a.column[c], ra, b.column[c], rb)) return false;
  }
  return true;
}

// The same test for every lane whose `want` is set, all 32 lanes calling converged: fixed-width columns per lane,
// byte columns per lane up to their lengths and then the bytes of each candidate compared by the whole warp.
__device__ __forceinline__ bool keys_equal_warp(bool want, const KeyColumns& a, int64_t ra, const KeyColumns& b,
                                                int64_t rb) {
  bool eq = want;
#pragma unroll
  for (int c = 0; c < MAX_KEY_COLUMNS; c++) {
    if (c >= a.count) break;
    const KeyColumn& ka = a.column[c];
    const KeyColumn& kb = b.column[c];
    int32_t sa = 0, sb = 0, length = 0;
    if (eq) {
      const bool va = key_valid(ka, ra);
      const bool vb = key_valid(kb, rb);
      if (!va || !vb) {
        eq = !va && !vb;
      } else if (ka.kind != KEY_BYTES) {
        eq = key_int(ka, ra) == key_int(kb, rb);
      } else {
        sa = ka.offsets[ra];
        sb = kb.offsets[rb];
        length = ka.offsets[ra + 1] - sa;
        eq = length == kb.offsets[rb + 1] - sb;
      }
    }
    if (ka.kind != KEY_BYTES) continue;  // warp-uniform: both sides have the same kinds
    uint32_t pending = __ballot_sync(FULL_WARP, eq && length > 0);
    while (pending != 0) {
      const int leader = __ffs(pending) - 1;
      pending &= pending - 1;
      const uint8_t* pa = ka.data + __shfl_sync(FULL_WARP, sa, leader);
      const uint8_t* pb = kb.data + __shfl_sync(FULL_WARP, sb, leader);
      const int32_t n = __shfl_sync(FULL_WARP, length, leader);
      bool same = true;
      for (int32_t i = lane_id(); __any_sync(FULL_WARP, i < n) && same; i += 32) {
        same = __all_sync(FULL_WARP, i >= n || pa[i] == pb[i]);
      }
      if (lane_id() == leader) eq = same;
    }
  }
  return eq;
}

}  // namespace sparkwarp
