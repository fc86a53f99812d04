package io.sparkwarp.kernels.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import org.apache.arrow.memory.util.MemoryUtil;
import org.junit.jupiter.api.Test;

/**
 * Known answers of Spark 4.1's {@code Murmur3_x86_32} (computed with spark-unsafe 4.1.3: hashInt, hashLong,
 * hashUnsafeBytes over UTF-8 and over BigInteger.toByteArray()); the plugin's tests also compare whole partition
 * ids with Spark's expression.
 */
class SparkMurmur3Test {
  @Test
  void integers() {
    assertEquals(-559580957, SparkMurmur3.hashInt(1, 42));
    assertEquals(723455942, SparkMurmur3.hashInt(Integer.MIN_VALUE, 42));
    assertEquals(-939490007, SparkMurmur3.hashLong(-1L, 42));
    assertEquals(-1569585114, SparkMurmur3.hashLong(123456789012L, 7));
  }

  @Test
  void bytesWithSparksTail() {
    String[] strings = {"", "a", "abcd", "abcde", "日本語", "😀x"};
    int[] expected = {142593372, 1485273170, -396302900, 814637928, -1143049834, -1814635023};
    for (int i = 0; i < strings.length; i++) {
      byte[] bytes = strings[i].getBytes(StandardCharsets.UTF_8);
      long address = MemoryUtil.allocateMemory(Math.max(1, bytes.length));
      try {
        MemoryUtil.copyToMemory(bytes, 0, address, bytes.length);
        assertEquals(expected[i], SparkMurmur3.hashBytes(address, bytes.length, 42), strings[i]);
      } finally {
        MemoryUtil.freeMemory(address);
      }
    }
  }

  @Test
  void wideDecimalsAsBigIntegerBytes() {
    String[] values = {"0", "-1", "255", "-129", "12345678901234567890123", "-99999999999999999999999999999999999999",
        "170141183460469231731687303715884105727"};
    int[] expected = {-783713497, 1398487324, 1246198977, -771458971, -434902821, 1400911110, -1255691256};
    for (int i = 0; i < values.length; i++) {
      BigInteger v = new BigInteger(values[i]);
      long lo = v.longValue();
      long hi = v.shiftRight(64).longValue();
      assertEquals(expected[i], SparkMurmur3.hashWideDecimal(lo, hi, 42), values[i]);
    }
  }

  @Test
  void floatsHashLikeSpark() {
    assertEquals(0, SparkMurmur3.floatBits(-0.0f));
    assertEquals(Float.floatToIntBits(Float.NaN), SparkMurmur3.floatBits(Float.intBitsToFloat(0x7fc00001)));
    assertEquals(0L, SparkMurmur3.doubleBits(-0.0d));
    assertEquals(Double.doubleToLongBits(Double.NaN), SparkMurmur3.doubleBits(Double.longBitsToDouble(0x7ff0000000000001L)));
  }
}
