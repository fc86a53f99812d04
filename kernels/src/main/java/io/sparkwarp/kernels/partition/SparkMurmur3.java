package io.sparkwarp.kernels.partition;

import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Spark's {@code Murmur3_x86_32} (org.apache.spark.unsafe.hash), the hash of HashPartitioning, over native memory:
 * the host twin of {@code spark_murmur3.cuh}, bit for bit, with Spark's non-standard tail (each trailing byte mixed
 * in on its own, sign-extended). The plugin's tests check it against Spark's own expression.
 */
public final class SparkMurmur3 {
  /** The seed of HashPartitioning.partitionIdExpression's Murmur3Hash. */
  public static final int SEED = 42;

  private SparkMurmur3() {}

  public static int hashInt(int input, int seed) {
    return fmix(mixH1(seed, mixK1(input)), 4);
  }

  /** The low word, then the high word. */
  public static int hashLong(long input, int seed) {
    int h1 = mixH1(seed, mixK1((int) input));
    return fmix(mixH1(h1, mixK1((int) (input >>> 32))), 8);
  }

  /** {@code hashUnsafeBytes} over native memory. */
  public static int hashBytes(long address, int length, int seed) {
    return hashBytes(new Bytes() {
      @Override
      public int intAt(int i) {
        return MemoryUtil.getInt(address + i);  // Arrow memory is little-endian, as the device's
      }

      @Override
      public byte byteAt(int i) {
        return MemoryUtil.getByte(address + i);
      }
    }, length, seed);
  }

  /**
   * A decimal wider than a long: Spark hashes {@code BigInteger.toByteArray()} of the unscaled value, big-endian two's
   * complement in the fewest bytes that keep the sign. lo, hi: the words of the little-endian 128-bit value.
   */
  public static int hashWideDecimal(long lo, long hi, int seed) {
    byte[] bytes = new byte[16];
    for (int k = 0; k < 8; k++) {
      bytes[k] = (byte) (hi >>> (56 - 8 * k));
      bytes[8 + k] = (byte) (lo >>> (56 - 8 * k));
    }
    // a leading byte is redundant when it only repeats the sign bit of the byte after it
    int start = 0;
    while (start < 15 && bytes[start] == (byte) (bytes[start + 1] >> 7)) start++;
    int from = start;
    return hashBytes(new Bytes() {
      @Override
      public int intAt(int i) {
        int at = from + i;
        return (bytes[at] & 0xFF) | (bytes[at + 1] & 0xFF) << 8 | (bytes[at + 2] & 0xFF) << 16 | bytes[at + 3] << 24;
      }

      @Override
      public byte byteAt(int i) {
        return bytes[from + i];
      }
    }, 16 - start, seed);
  }

  /** Little-endian 4-byte words, then every trailing byte as a sign-extended int. */
  private static int hashBytes(Bytes bytes, int length, int seed) {
    int aligned = length - length % 4;
    int h1 = seed;
    for (int i = 0; i < aligned; i += 4) h1 = mixH1(h1, mixK1(bytes.intAt(i)));
    for (int i = aligned; i < length; i++) h1 = mixH1(h1, mixK1(bytes.byteAt(i)));
    return fmix(h1, length);
  }

  /** The input of {@link #hashBytes(Bytes, int, int)}. */
  private interface Bytes {
    /** The little-endian int at byte i. */
    int intAt(int i);

    byte byteAt(int i);
  }

  /** The bits Spark hashes for a float: -0.0 as 0.0, every NaN as Java's canonical one. */
  public static int floatBits(float f) {
    return f == 0.0f ? 0 : Float.floatToIntBits(f);
  }

  /** The bits Spark hashes for a double: -0.0 as 0.0, every NaN as Java's canonical one. */
  public static long doubleBits(double d) {
    return d == 0.0d ? 0L : Double.doubleToLongBits(d);
  }

  private static int mixK1(int k1) {
    return Integer.rotateLeft(k1 * 0xcc9e2d51, 15) * 0x1b873593;
  }

  private static int mixH1(int h1, int k1) {
    return Integer.rotateLeft(h1 ^ k1, 13) * 5 + 0xe6546b64;
  }

  private static int fmix(int h1, int length) {
    h1 ^= length;
    h1 ^= h1 >>> 16;
    h1 *= 0x85ebca6b;
    h1 ^= h1 >>> 13;
    h1 *= 0xc2b2ae35;
    return h1 ^ (h1 >>> 16);
  }
}
