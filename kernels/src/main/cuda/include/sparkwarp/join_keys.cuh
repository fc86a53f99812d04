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

// Equality of one column's values at two joinable rows, the bytes compared by this lane alone. A column that is not
// null-safe has no nulls at joinable rows, so only null-safe columns' validity is read.
__device__ __forceinline__ bool key_column_equal(const KeyColumn& a, int64_t ra, const KeyColumn& b, int64_t rb) {
  if (a.null_safe) {
    const bool va = key_valid(a, ra);
    const bool vb = key_valid(b, rb);
    if (!va || !vb) return !va && !vb;  // null matches null under <=>
  }
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

// Equality tests of Rounds pairs of joinable rows (ra[r] of `a`, rb[r] of `b`) for the lanes whose eq[r] is set, all
// 32 lanes calling converged; eq[r] holds the answer on return. Column by column, the fixed-width values of all
// Rounds pairs are loaded before any is compared, so a warp has Rounds random key reads in flight instead of one
// after another; byte columns are compared per lane up to their lengths, then the bytes of each candidate by the
// whole warp, one candidate at a time.
template <int Rounds>
__device__ __forceinline__ void keys_equal_warp(bool (&eq)[Rounds], const KeyColumns& a, const int64_t (&ra)[Rounds],
                                                const KeyColumns& b, const int64_t (&rb)[Rounds]) {
#pragma unroll
  for (int c = 0; c < MAX_KEY_COLUMNS; c++) {
    if (c >= a.count) break;
    const KeyColumn& ka = a.column[c];
    const KeyColumn& kb = b.column[c];
    bool compare[Rounds];  // both values present: the values decide
#pragma unroll
    for (int r = 0; r < Rounds; r++) {
      compare[r] = eq[r];
      if (eq[r] && ka.null_safe) {
        const bool va = key_valid(ka, ra[r]);
        const bool vb = key_valid(kb, rb[r]);
        if (!va || !vb) {
          eq[r] = !va && !vb;
          compare[r] = false;
        }
      }
    }
    if (ka.kind != KEY_BYTES) {  // warp-uniform: both sides have the same kinds
      int64_t x[Rounds], y[Rounds];
#pragma unroll
      for (int r = 0; r < Rounds; r++) {
        x[r] = compare[r] ? key_int(ka, ra[r]) : 0;
        y[r] = compare[r] ? key_int(kb, rb[r]) : 0;
      }
#pragma unroll
      for (int r = 0; r < Rounds; r++) {
        if (compare[r]) eq[r] = x[r] == y[r];
      }
      continue;
    }
#pragma unroll
    for (int r = 0; r < Rounds; r++) {
      int32_t sa = 0, sb = 0, length = 0;
      if (compare[r]) {
        sa = ka.offsets[ra[r]];
        sb = kb.offsets[rb[r]];
        length = ka.offsets[ra[r] + 1] - sa;
        eq[r] = length == kb.offsets[rb[r] + 1] - sb;
      }
      uint32_t pending = __ballot_sync(FULL_WARP, compare[r] && eq[r] && length > 0);
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
        if (lane_id() == leader) eq[r] = same;
      }
    }
  }
}

}  // namespace sparkwarp
