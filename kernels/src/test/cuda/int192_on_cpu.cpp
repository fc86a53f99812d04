// int192.cuh on the CPU: products, scaled quotients, bounds and conversions against unsigned __int128 and a
// schoolbook reference, and atomic sums through the warp emulation. Prints "ok" or the first
// disagreement (exit 1). Run by AggregateKernelsOnCpuTest.
#include "warp_emulation.h"
#include "sparkwarp/int192.cuh"

#include <random>

using namespace sparkwarp;
using i128 = __int128;
using u128 = unsigned __int128;

static int failures = 0;

static void expect(bool ok, const char* what, long long a, long long b, long long c) {
  if (!ok && failures++ < 10) fprintf(stderr, "FAIL %s (%lld, %lld, %lld)\n", what, a, b, c);
}

static Int192 from128(i128 v) { return int192_from128(static_cast<uint64_t>(v), static_cast<int64_t>(v >> 64)); }

static bool same(const Int192& a, const Int192& b) {
  return a.w[0] == b.w[0] && a.w[1] == b.w[1] && a.w[2] == b.w[2];
}

// a * b * c by 32-bit limbs of the magnitudes: an independent reference for products beyond 128 bits.
static Int192 schoolbook(int64_t a, int64_t b, int64_t c) {
  uint32_t x[6] = {0}, y[6] = {0};
  bool negative = ((a < 0) != (b < 0)) != (c < 0);
  auto mag = [](int64_t v) { return v < 0 ? 0ull - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); };
  uint64_t ma = mag(a), mb = mag(b), mc = mag(c);
  x[0] = static_cast<uint32_t>(ma);
  x[1] = static_cast<uint32_t>(ma >> 32);
  for (int step = 0; step < 2; step++) {
    uint64_t m = step == 0 ? mb : mc;
    uint32_t f[2] = {static_cast<uint32_t>(m), static_cast<uint32_t>(m >> 32)};
    for (int i = 0; i < 6; i++) y[i] = 0;
    for (int i = 0; i < 6; i++) {
      uint64_t carry = 0;
      for (int j = 0; j < 2 && i + j < 6; j++) {
        uint64_t t = static_cast<uint64_t>(x[i]) * f[j] + y[i + j] + carry;
        y[i + j] = static_cast<uint32_t>(t);
        carry = t >> 32;
      }
      if (i + 2 < 6) y[i + 2] += static_cast<uint32_t>(carry);
    }
    for (int i = 0; i < 6; i++) x[i] = y[i];
  }
  Int192 r = {{x[0] | static_cast<uint64_t>(x[1]) << 32, x[2] | static_cast<uint64_t>(x[3]) << 32,
               x[4] | static_cast<uint64_t>(x[5]) << 32}};
  return negative ? int192_negate(r) : r;
}

int main() {
  std::mt19937_64 rnd(12345);
  const int64_t extremes[] = {INT64_MIN, INT64_MAX, 0, 1, -1, 999999999999999999LL, -999999999999999999LL};
  auto pick = [&]() -> int64_t {
    return rnd() % 4 == 0 ? extremes[rnd() % 7] : static_cast<int64_t>(rnd()) >> (rnd() % 60);
  };
  for (int i = 0; i < 200000; i++) {
    int64_t a = pick(), b = pick(), c = pick();
    expect(same(int192_product(a, b, nullptr), from128(static_cast<i128>(a) * b)), "product of two", a, b, 0);
    expect(same(int192_product(a, b, &c), schoolbook(a, b, c)), "product of three", a, b, c);
    int64_t sa = a >> 24, sb = b >> 24, sc = c >> 24;  // small enough for __int128
    expect(same(int192_product(sa, sb, &sc), from128(static_cast<i128>(sa) * sb * sc)), "small product", sa, sb, sc);
    // round_half_up(m * factor / divisor) for m * factor < 2^127
    u128 m = (static_cast<u128>(rnd()) << 36) ^ rnd();
    uint64_t factor = 1;
    for (int k = rnd() % 5; k > 0; k--) factor *= 10;
    uint64_t divisor = 1 + (rnd() >> (rnd() % 63));
    u128 p = m * factor;
    u128 q = p / divisor, r = p % divisor;
    if (r >= divisor - r) q++;
    Int192 mag = {{static_cast<uint64_t>(m), static_cast<uint64_t>(m >> 64), 0}};
    Int192 got = int192_scaled_quotient(mag, factor, divisor);
    expect(same(got, {{static_cast<uint64_t>(q), static_cast<uint64_t>(q >> 64), 0}}), "scaled quotient",
           static_cast<long long>(m), static_cast<long long>(factor), static_cast<long long>(divisor));
    // bounds and conversions
    i128 v = static_cast<i128>(a) * b;
    u128 bound = static_cast<u128>(rnd()) << 40;
    u128 magnitude = v < 0 ? static_cast<u128>(-v) : static_cast<u128>(v);
    expect(int192_magnitude_below(from128(v), static_cast<uint64_t>(bound), static_cast<uint64_t>(bound >> 64))
               == (magnitude < bound), "magnitude below", a, b, 0);
    expect(int192_fits64(from128(v)) == (v >= INT64_MIN && v <= INT64_MAX), "fits64", a, b, 0);
    expect(int192_to_double(int192_from64(a)) == static_cast<double>(a), "to double", a, 0, 0);
  }
  // concurrent atomic sums into one accumulator
  std::vector<Int192> adds(256);
  Int192 total = int192_zero();
  for (Int192& x : adds) {
    x = from128((static_cast<i128>(pick()) << 60) ^ pick());
    total = int192_add(total, x);
  }
  unsigned long long acc[3] = {0, 0, 0};
  launch(4, 64, [&] { atomic_add192(acc, adds[blockIdx.x * 64 + threadIdx.x]); });
  expect(same({{acc[0], acc[1], acc[2]}}, total), "atomic sum", 0, 0, 0);
  if (failures == 0) printf("ok\n");
  return failures == 0 ? 0 : 1;
}
