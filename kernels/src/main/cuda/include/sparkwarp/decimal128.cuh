// 128-bit decimals in expression programs (precision 19 to 38): unscaled values as __int128, Arrow's two
// little-endian words. Scaling by powers of ten up to 10^38, HALF_UP rounding like Spark's Decimal, and the
// precision bound |x| < 10^p. Host twin: io.sparkwarp.kernels.host.Decimal128.
#pragma once
#include <cstdint>

namespace sparkwarp {

using int128 = __int128;

__device__ __forceinline__ int128 make_int128(uint64_t lo, int64_t hi) {
  return static_cast<int128>((static_cast<unsigned __int128>(static_cast<uint64_t>(hi)) << 64) | lo);
}

__device__ __forceinline__ uint64_t low_word(int128 x) { return static_cast<uint64_t>(x); }
__device__ __forceinline__ int64_t high_word(int128 x) { return static_cast<int64_t>(x >> 64); }

// 10^k for k in [0, 38].
__device__ __forceinline__ int128 pow10_128(int k) {
  int128 p = 1;
  for (int i = 0; i < k; i++) p *= 10;
  return p;
}

// |x| < 10^digits: x fits a decimal of that many digits (digits in [0, 38]).
__device__ __forceinline__ bool fits_digits(int128 x, int digits) {
  const int128 bound = pow10_128(digits);
  return x > -bound && x < bound;
}

// x / 10^k rounded half away from zero, k in [1, 38].
__device__ __forceinline__ int128 shrink_half_up(int128 x, int k) {
  const int128 d = pow10_128(k);
  int128 q = x / d;
  const int128 rem = x % d;
  const int128 abs_rem = rem < 0 ? -rem : rem;
  if (abs_rem >= d - abs_rem) q += x < 0 ? -1 : 1;  // 2 * |rem| >= d without overflowing
  return q;
}

// z = x * y where the product fits 128 bits; false (z unset) where it does not.
__device__ __forceinline__ bool multiply_fits128(int128 x, int128 y, int128* z) {
  using u128 = unsigned __int128;
  const u128 ux = x < 0 ? -static_cast<u128>(x) : static_cast<u128>(x);
  const u128 uy = y < 0 ? -static_cast<u128>(y) : static_cast<u128>(y);
  const bool negative = (x < 0) != (y < 0);
  const u128 limit = (static_cast<u128>(1) << 127) - (negative ? 0 : 1);  // |INT128_MIN| or INT128_MAX
  if (ux != 0 && uy > limit / ux) return false;
  const u128 m = ux * uy;
  *z = negative ? static_cast<int128>(-m) : static_cast<int128>(m);
  return true;
}

// x at scale `from` moved to scale `to` with at most `precision` digits: false when it does not fit.
__device__ __forceinline__ bool rescale128(int128 x, int from, int to, int precision, int128* z) {
  if (to >= from) {
    // x * 10^(to - from) < 10^precision exactly when x < 10^(precision - (to - from)); no intermediate overflows
    const int room = precision - (to - from);
    if (room < 0 ? x != 0 : !fits_digits(x, room)) return false;
    *z = x * pow10_128(to - from);
    return true;
  }
  *z = shrink_half_up(x, from - to);
  return fits_digits(*z, precision);
}

}  // namespace sparkwarp
