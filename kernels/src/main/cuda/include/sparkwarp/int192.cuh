// Exact integer sums: a 192-bit two's complement value in three little-endian 64-bit words. Sums of int64 and of
// 128-bit decimals never wrap it (2^64 additions of values below 2^127), so whether a total leaves a 64-bit or a
// 38-digit result is decided once, at the end. Adds come in two forms: plain, and atomic into memory (shared or
// global), where each word's carry is forwarded exactly once, so concurrent adds are exact.
#pragma once
#include <cstdint>

namespace sparkwarp {

struct Int192 {
  uint64_t w[3];
};

__device__ __forceinline__ Int192 int192_zero() { return {{0, 0, 0}}; }

__device__ __forceinline__ Int192 int192_from64(int64_t v) {
  const uint64_t s = v < 0 ? ~0ull : 0ull;
  return {{static_cast<uint64_t>(v), s, s}};
}

__device__ __forceinline__ Int192 int192_from128(uint64_t lo, int64_t hi) {
  return {{lo, static_cast<uint64_t>(hi), hi < 0 ? ~0ull : 0ull}};
}

__device__ __forceinline__ Int192 int192_add(const Int192& a, const Int192& b) {
  Int192 r;
  r.w[0] = a.w[0] + b.w[0];
  const uint64_t c0 = r.w[0] < a.w[0];
  const uint64_t t = a.w[1] + b.w[1];
  r.w[1] = t + c0;
  const uint64_t c1 = (t < a.w[1]) + (r.w[1] < t);
  r.w[2] = a.w[2] + b.w[2] + c1;
  return r;
}

__device__ __forceinline__ bool int192_negative(const Int192& v) { return static_cast<int64_t>(v.w[2]) < 0; }

__device__ __forceinline__ Int192 int192_negate(const Int192& v) {
  Int192 r = {{~v.w[0], ~v.w[1], ~v.w[2]}};
  return int192_add(r, Int192{{1, 0, 0}});
}

// Whether the value is an int64 (the upper words only repeat the sign of the lowest).
__device__ __forceinline__ bool int192_fits64(const Int192& v) {
  const uint64_t s = static_cast<int64_t>(v.w[0]) < 0 ? ~0ull : 0ull;
  return v.w[1] == s && v.w[2] == s;
}

// Whether |v| < bound, an unsigned 128-bit bound (hi, lo), such as 10^38.
__device__ __forceinline__ bool int192_magnitude_below(const Int192& v, uint64_t bound_lo, uint64_t bound_hi) {
  const Int192 m = int192_negative(v) ? int192_negate(v) : v;
  if (m.w[2] != 0) return false;
  return m.w[1] < bound_hi || (m.w[1] == bound_hi && m.w[0] < bound_lo);
}

__device__ __forceinline__ double int192_to_double(const Int192& v) {
  if (int192_fits64(v)) return static_cast<double>(static_cast<int64_t>(v.w[0]));
  const Int192 m = int192_negative(v) ? int192_negate(v) : v;
  const double d = static_cast<double>(m.w[2]) * 0x1p128 + static_cast<double>(m.w[1]) * 0x1p64
                   + static_cast<double>(m.w[0]);
  return int192_negative(v) ? -d : d;
}

// The exact product of int64 factors (at most three: 3 x 63 bits of magnitude fit 192).
__device__ __forceinline__ Int192 int192_product(int64_t a, int64_t b, const int64_t* c) {
  bool negative = (a < 0) != (b < 0);
  const uint64_t ma = a < 0 ? 0ull - static_cast<uint64_t>(a) : static_cast<uint64_t>(a);
  const uint64_t mb = b < 0 ? 0ull - static_cast<uint64_t>(b) : static_cast<uint64_t>(b);
  Int192 m = {{ma * mb, __umul64hi(ma, mb), 0}};
  if (c != nullptr) {
    negative = negative != (*c < 0);
    const uint64_t mc = *c < 0 ? 0ull - static_cast<uint64_t>(*c) : static_cast<uint64_t>(*c);
    const uint64_t lo_hi = __umul64hi(m.w[0], mc);
    const uint64_t mid = m.w[1] * mc;
    Int192 r = {{m.w[0] * mc, lo_hi + mid, __umul64hi(m.w[1], mc) + (lo_hi + mid < lo_hi)}};
    m = r;
  }
  return negative ? int192_negate(m) : m;
}

// round_half_up(m * factor / divisor) of a magnitude m < 2^128, a factor and a divisor (> 0): the product is 192
// bits, divided word by word with 128-bit remainders.
__device__ __forceinline__ Int192 int192_scaled_quotient(const Int192& m, uint64_t factor, uint64_t divisor) {
  uint64_t p[3];
  p[0] = m.w[0] * factor;
  const uint64_t carry_in = __umul64hi(m.w[0], factor);
  p[1] = carry_in + m.w[1] * factor;
  p[2] = __umul64hi(m.w[1], factor) + (p[1] < carry_in);
  Int192 q;
  unsigned __int128 rem = 0;
  for (int i = 2; i >= 0; i--) {
    const unsigned __int128 cur = (rem << 64) | p[i];
    q.w[i] = static_cast<uint64_t>(cur / divisor);
    rem = cur % divisor;
  }
  return rem >= divisor - rem ? int192_add(q, Int192{{1, 0, 0}}) : q;  // half up, without overflowing 2 * rem
}

// acc[0..2] += v, atomically per word; a word whose addend is 0 costs no atomic.
__device__ __forceinline__ void atomic_add192(unsigned long long* acc, const Int192& v) {
  unsigned long long carry = 0;
#pragma unroll
  for (int i = 0; i < 3; i++) {
    const unsigned long long add = v.w[i] + carry;
    carry = add < carry;  // v.w[i] = ~0 with a carry in: the word gets 2^64, i.e. nothing and a carry out
    if (add != 0) {
      const unsigned long long old = atomicAdd(acc + i, add);
      carry += old + add < old;
    }
  }
}

}  // namespace sparkwarp
