// Spark's division of 128-bit decimals (Decimal.$div, then toPrecision): the exact quotient rounded HALF_UP to
// scale 39, then HALF_UP to the result's scale. Computed as one 192-by-128-bit integer division at the result's
// scale, whose remainder decides both roundings. Host twin: ExprInterpreter's DIVIDE of DECIMAL128 (BigDecimal).
#pragma once
#include <cstdint>

#include "sparkwarp/decimal128.cuh"

namespace sparkwarp {

using uint128 = unsigned __int128;

// w[0..2] (little-endian) = a * b, for a product known to fit 192 bits.
__device__ __forceinline__ void multiply_192(uint128 a, uint128 b, uint64_t (&w)[3]) {
  const uint128 a0 = static_cast<uint64_t>(a), a1 = a >> 64, b0 = static_cast<uint64_t>(b), b1 = b >> 64;
  const uint128 low = a0 * b0;
  const uint128 mid1 = a0 * b1, mid2 = a1 * b0;
  const uint128 mid = (low >> 64) + static_cast<uint64_t>(mid1) + static_cast<uint64_t>(mid2);
  w[0] = static_cast<uint64_t>(low);
  w[1] = static_cast<uint64_t>(mid);
  w[2] = static_cast<uint64_t>((mid >> 64) + (mid1 >> 64) + (mid2 >> 64) + a1 * b1);
}

// q = floor(x / y) and the remainder, for y in (0, 2^127]: binary long division from x's highest set word down,
// so the remainder (below y) doubled plus a bit never leaves 128 bits.
__device__ __forceinline__ uint128 divide_192(const uint64_t (&x)[3], uint128 y, uint64_t (&q)[3]) {
  q[0] = q[1] = q[2] = 0;
  uint128 r = 0;
  const int top = x[2] != 0 ? 2 : x[1] != 0 ? 1 : 0;
  for (int i = 64 * top + 63; i >= 0; i--) {
    r = r << 1 | ((x[i >> 6] >> (i & 63)) & 1u);
    if (r >= y) {
      r -= y;
      q[i >> 6] |= 1ull << (i & 63);
    }
  }
  return r;
}

// z = Spark's x / y into a decimal of precision p and scale rs, x at scale s1 and y (not 0) at scale s2, both below
// 10^38 in magnitude; false (z unset) when the quotient needs more than p digits. The builder allows it where
// |x| * 10^k fits 192 bits and |y| * 10^-k fits 38 digits, k = rs + s2 - s1.
__device__ __forceinline__ bool divide_decimal128(int128 x, int128 y, int s1, int s2, int rs, int p, int128* z) {
  const int k = rs + s2 - s1;
  const bool negative = (x < 0) != (y < 0);
  const uint128 ux = x < 0 ? -static_cast<uint128>(x) : static_cast<uint128>(x);
  uint128 uy = y < 0 ? -static_cast<uint128>(y) : static_cast<uint128>(y);
  if (k < 0) uy *= static_cast<uint128>(pow10_128(-k));
  uint64_t scaled[3], q[3];
  multiply_192(ux, static_cast<uint128>(pow10_128(k > 0 ? k : 0)), scaled);
  const uint128 r = divide_192(scaled, uy, q);
  // HALF_UP at scale rs, r / y >= 1/2; or Spark's first rounding, at scale 39 = rs + m, carries the fraction up
  // to exactly 1/2: r / y >= 1/2 - 10^-m / 2, i.e. (y - 2r) * 10^m <= y (y - 2r is below y, so divide instead)
  const int m = 39 - rs;
  bool up = r >= uy - r;
  if (!up && m < 38) up = uy - 2 * r <= uy / static_cast<uint128>(pow10_128(m));
  if (up && ++q[0] == 0 && ++q[1] == 0) ++q[2];
  const uint128 magnitude = static_cast<uint128>(q[1]) << 64 | q[0];
  if (q[2] != 0 || magnitude >= static_cast<uint128>(pow10_128(p))) return false;
  *z = negative ? -static_cast<int128>(magnitude) : static_cast<int128>(magnitude);
  return true;
}

}  // namespace sparkwarp
