// Spark SQL's numeric semantics on the device, operation for operation the same as the host reference
// (io.sparkwarp.kernels.host.ExprInterpreter): Java's integer wrap-around and conversions, Spark's float ordering,
// decimal scaling with HALF_UP rounding. Floating operations use the _rn intrinsics so nvcc never contracts them
// into FMAs (Java rounds every operation).
#pragma once
#include <cstdint>

namespace sparkwarp {

// 10^i for i in [0, 18]: decimal scaling and precision bounds.
__constant__ int64_t POW10[19] = {1LL, 10LL, 100LL, 1000LL, 10000LL, 100000LL, 1000000LL, 10000000LL, 100000000LL,
                                  1000000000LL, 10000000000LL, 100000000000LL, 1000000000000LL, 10000000000000LL,
                                  100000000000000LL, 1000000000000000LL, 10000000000000000LL,
                                  100000000000000000LL, 1000000000000000000LL};
// Powers of ten exact in float and double, as JDK's BigDecimal.floatValue / doubleValue divide by them.
__constant__ float FLOAT_POW10[11] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
__constant__ double DOUBLE_POW10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

__device__ __forceinline__ double as_double(int64_t bits) { return __longlong_as_double(bits); }
__device__ __forceinline__ int64_t double_bits(double d) { return __double_as_longlong(d); }

// Spark's SQLOrderingUtil.compareDoubles: -0.0 equals 0.0, NaN equals NaN and sorts above every other value.
__device__ __forceinline__ int compare_doubles(double x, double y) {
  if (x == y) return 0;
  const bool xn = isnan(x), yn = isnan(y);
  if (xn || yn) return xn && yn ? 0 : (xn ? 1 : -1);
  return x < y ? -1 : 1;
}

// UTF8String.binaryCompare and Spark's binary ordering: unsigned bytes, then length.
__device__ __forceinline__ int compare_bytes(const uint8_t* x, int32_t xl, const uint8_t* y, int32_t yl) {
  const int32_t n = xl < yl ? xl : yl;
  for (int32_t i = 0; i < n; i++) {
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  }
  return xl < yl ? -1 : (xl == yl ? 0 : 1);
}

// Java's narrowing of a long to a kind's width (KIND_BYTE 1, SHORT 2, INT 3, DATE 7), sign-extended back.
__device__ __forceinline__ int64_t wrap_to(int64_t x, int kind) {
  switch (kind) {
    case 1: return static_cast<int8_t>(x);
    case 2: return static_cast<int16_t>(x);
    case 3:
    case 7: return static_cast<int32_t>(x);
    default: return x;
  }
}

// Java's (int) of a double: NaN is 0, out-of-range values saturate, the rest truncate toward zero.
__device__ __forceinline__ int32_t java_d2i(double x) {
  if (isnan(x)) return 0;
  if (x >= 2147483647.0) return INT32_MAX;
  if (x <= -2147483648.0) return INT32_MIN;
  return static_cast<int32_t>(x);
}

// Java's (long) of a double, like java_d2i.
__device__ __forceinline__ int64_t java_d2l(double x) {
  if (isnan(x)) return 0;
  if (x >= 9223372036854775807.0) return INT64_MAX;
  if (x <= -9223372036854775808.0) return INT64_MIN;
  return static_cast<int64_t>(x);
}

// Floor division (Math.floorDiv) for a positive divisor.
__device__ __forceinline__ int64_t floor_div(int64_t x, int64_t y) {
  int64_t q = x / y;
  return (x % y != 0 && x < 0) ? q - 1 : q;
}

// x / y rounded half away from zero (Decimal's ROUND_HALF_UP); |x|, |y| < 10^18.
__device__ __forceinline__ int64_t divide_half_up(int64_t x, int64_t y) {
  int64_t q = x / y;
  const int64_t rem = x % y;
  const int64_t abs_rem = rem < 0 ? -rem : rem;
  const int64_t abs_y = y < 0 ? -y : y;
  if (2 * abs_rem >= abs_y) q += ((x < 0) == (y < 0)) ? 1 : -1;
  return q;
}

// Whether the product of two longs fits a long, with the product in *z.
__device__ __forceinline__ bool multiply_fits(int64_t x, int64_t y, int64_t* z) {
  const __int128 p = static_cast<__int128>(x) * y;
  *z = static_cast<int64_t>(p);
  return p == static_cast<__int128>(*z);
}

}  // namespace sparkwarp
