package io.sparkwarp.kernels.host;

import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * 128-bit decimals of expression programs on the host (the device's {@code decimal128.cuh}): unscaled values as
 * BigInteger built from Arrow's two little-endian words, rescaled with HALF_UP rounding and bounded by precision.
 */
final class Decimal128 {
  private static final BigInteger[] POW10 = new BigInteger[39];

  static {
    for (int i = 0; i < POW10.length; i++) POW10[i] = BigInteger.TEN.pow(i);
  }

  private Decimal128() {}

  static BigInteger of(long lo, long hi) {
    return BigInteger.valueOf(hi).shiftLeft(64).add(new BigInteger(Long.toUnsignedString(lo)));
  }

  static long low(BigInteger x) {
    return x.longValue();
  }

  static long high(BigInteger x) {
    return x.shiftRight(64).longValue();
  }

  static BigInteger pow10(int k) {
    return POW10[k];
  }

  /** |x| < 10^digits. */
  static boolean fits(BigInteger x, int digits) {
    return x.abs().compareTo(POW10[digits]) < 0;
  }

  /** x at scale {@code from} moved to scale {@code to} with HALF_UP rounding, or null past {@code precision}. */
  static BigInteger rescale(BigInteger x, int from, int to, int precision) {
    BigInteger z = to >= from ? x.multiply(POW10[to - from])
        : new java.math.BigDecimal(x).divide(new java.math.BigDecimal(POW10[from - to]), 0, RoundingMode.HALF_UP)
            .toBigIntegerExact();
    return fits(z, precision) ? z : null;
  }
}
