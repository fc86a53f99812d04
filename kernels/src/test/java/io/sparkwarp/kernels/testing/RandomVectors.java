package io.sparkwarp.kernels.testing;

import io.sparkwarp.kernels.batch.DeviceType;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float4Vector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.SmallIntVector;
import org.apache.arrow.vector.TimeStampVector;
import org.apache.arrow.vector.TinyIntVector;
import org.apache.arrow.vector.VarBinaryVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * Random Arrow vectors of every device type, salted with the values that break GPU code: nulls, extremes, NaN,
 * -0.0, infinities, empty strings, multi-byte UTF-8 (2, 3 and 4 bytes) and long strings.
 */
public final class RandomVectors {
  private static final String[] TRICKY_STRINGS = {"", "a", " ", "ü", "日本語", "😀", "a😀b", "Ω≈ç√∫", "\u0000", "NULL",
      "%_\\", "green", "special requests"};

  private RandomVectors() {}

  /** Every device type the tests cover, decimals at both ends of the precision range. */
  public static DeviceType[] allTypes() {
    return new DeviceType[] {DeviceType.BOOLEAN, DeviceType.BYTE, DeviceType.SHORT, DeviceType.INT, DeviceType.LONG,
        DeviceType.FLOAT, DeviceType.DOUBLE, DeviceType.DATE, DeviceType.timestamp("UTC"), DeviceType.timestamp(null),
        DeviceType.decimal(18, 4), DeviceType.decimal(5, 2), DeviceType.STRING, DeviceType.BINARY};
  }

  /**
   * A vector of {@code rows} random values, each null with probability {@code nullFraction}.
   *
   * @param maxStringBytes upper bound of a random string's length in bytes (tricky strings aside)
   */
  public static FieldVector random(DeviceType type, int rows, double nullFraction, int maxStringBytes, Random rnd,
      BufferAllocator allocator) {
    FieldVector v = new Field("c", FieldType.nullable(type.toArrow()), null).createVector(allocator);
    v.allocateNew();
    for (int i = 0; i < rows; i++) {
      if (rnd.nextDouble() < nullFraction) {
        setNull(v, i);
      } else {
        set(v, type, i, rnd, maxStringBytes);
      }
    }
    v.setValueCount(rows);
    return v;
  }

  private static void setNull(FieldVector v, int i) {
    // setSafe-style growth for nulls: every vector type here has setNull after reallocating when needed
    while (i >= v.getValueCapacity()) v.reAlloc();
    v.setNull(i);
  }

  private static void set(FieldVector v, DeviceType type, int i, Random rnd, int maxStringBytes) {
    boolean edge = rnd.nextInt(8) == 0;
    switch (type.kind()) {
      case BOOLEAN -> ((BitVector) v).setSafe(i, rnd.nextBoolean() ? 1 : 0);
      case BYTE -> ((TinyIntVector) v).setSafe(i, (byte) (edge ? pick(rnd, Byte.MIN_VALUE, Byte.MAX_VALUE, 0, -1)
          : rnd.nextInt()));
      case SHORT -> ((SmallIntVector) v).setSafe(i, (short) (edge ? pick(rnd, Short.MIN_VALUE, Short.MAX_VALUE, 0, -1)
          : rnd.nextInt()));
      case INT, DATE -> {
        int value = edge ? pick(rnd, Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1) : rnd.nextInt();
        if (v instanceof DateDayVector d) d.setSafe(i, value);
        else ((IntVector) v).setSafe(i, value);
      }
      case LONG -> ((BigIntVector) v).setSafe(i, edge ? pickLong(rnd) : rnd.nextLong());
      case TIMESTAMP -> ((TimeStampVector) v).setSafe(i, edge ? pickLong(rnd) : rnd.nextLong());
      case FLOAT -> ((Float4Vector) v).setSafe(i, edge ? pickFloat(rnd) : rnd.nextFloat() * 1e6f - 5e5f);
      case DOUBLE -> ((Float8Vector) v).setSafe(i, edge ? pickDouble(rnd) : rnd.nextGaussian() * 1e12);
      case DECIMAL -> {
        long bound = 1;
        for (int d = 0; d < type.precision(); d++) bound *= 10;
        long unscaled = edge ? (rnd.nextBoolean() ? bound - 1 : -(bound - 1)) : rnd.nextLong() % bound;
        ((DecimalVector) v).setSafe(i, unscaled);
      }
      case DECIMAL128 -> {
        java.math.BigInteger bound = java.math.BigInteger.TEN.pow(type.precision());
        java.math.BigInteger unscaled = edge ? bound.subtract(java.math.BigInteger.ONE)
            : new java.math.BigInteger(bound.bitLength() + 8, rnd).mod(bound);
        ((DecimalVector) v).setSafe(i, new java.math.BigDecimal(rnd.nextBoolean() ? unscaled : unscaled.negate(),
            type.scale()));
      }
      case STRING -> ((VarCharVector) v).setSafe(i, randomString(rnd, maxStringBytes, edge));
      case BINARY -> {
        byte[] bytes = new byte[rnd.nextInt(maxStringBytes + 1)];
        rnd.nextBytes(bytes);
        ((VarBinaryVector) v).setSafe(i, bytes);
      }
    }
  }

  /** A UTF-8 string: a tricky one, or random code points of 1 to 4 bytes up to about {@code maxBytes}. */
  public static byte[] randomString(Random rnd, int maxBytes, boolean tricky) {
    if (tricky) return TRICKY_STRINGS[rnd.nextInt(TRICKY_STRINGS.length)].getBytes(StandardCharsets.UTF_8);
    StringBuilder sb = new StringBuilder();
    int target = rnd.nextInt(maxBytes + 1);
    int bytes = 0;
    while (bytes < target) {
      int cp = switch (rnd.nextInt(10)) {
        case 0 -> 0x80 + rnd.nextInt(0x780);  // 2 bytes
        case 1 -> 0x800 + rnd.nextInt(0xD000 - 0x800);  // 3 bytes, below the surrogates
        case 2 -> 0x10000 + rnd.nextInt(0x1000);  // 4 bytes
        default -> 0x20 + rnd.nextInt(0x5F);  // printable ASCII
      };
      sb.appendCodePoint(cp);
      bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    }
    return sb.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static int pick(Random rnd, int... values) {
    return values[rnd.nextInt(values.length)];
  }

  private static long pickLong(Random rnd) {
    long[] values = {Long.MIN_VALUE, Long.MAX_VALUE, 0, -1, 1};
    return values[rnd.nextInt(values.length)];
  }

  private static float pickFloat(Random rnd) {
    float[] values = {Float.NaN, -0.0f, 0.0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MIN_VALUE,
        Float.MAX_VALUE, -Float.MAX_VALUE, Float.intBitsToFloat(0x7fc00001)};
    return values[rnd.nextInt(values.length)];
  }

  private static double pickDouble(Random rnd) {
    double[] values = {Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.MIN_VALUE,
        Double.MAX_VALUE, -Double.MAX_VALUE, Double.longBitsToDouble(0x7ff8000000000001L)};
    return values[rnd.nextInt(values.length)];
  }
}
