package io.sparkwarp.it.data;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.LongFunction;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StringType$;

/**
 * Column generators for every type the plugin supports and for some it must leave on the CPU. Ordinary values
 * come half from a small domain (so equality and joins find matches) and half from the type's whole range.
 */
public final class Gens {
  /** Code points of 1, 2, 3 and 4 UTF-8 bytes. */
  private static final int[] ALPHABET = {'a', 'b', 'c', 'A', 'Z', '0', ' ', 'é', 'ß', '€', '中', 0x1F600, 0x1D11E};
  private static final List<Object> SMALL_STRINGS = List.of("a", "b", "ab", "ba", "é", "€", "😀", "A");
  private static final LocalDate FIRST_DATE = LocalDate.of(1, 1, 1);
  private static final LocalDate LAST_DATE = LocalDate.of(9999, 12, 31);
  private static final Instant FIRST_INSTANT = Instant.parse("0001-01-01T00:00:00Z");
  private static final Instant LAST_INSTANT = Instant.parse("9999-12-31T23:59:59.999999Z");
  private static final Instant SMALL_DOMAIN_START = Instant.parse("2020-01-01T00:00:00Z");

  private Gens() {}

  public static ColumnGen booleans() {
    return new ColumnGen(DataTypes.BooleanType, List.of(true, false), (r, row) -> r.nextBoolean());
  }

  public static ColumnGen bytes() {
    return integral(DataTypes.ByteType, Byte.MIN_VALUE, Byte.MAX_VALUE, v -> (byte) v);
  }

  public static ColumnGen shorts() {
    return integral(DataTypes.ShortType, Short.MIN_VALUE, Short.MAX_VALUE, v -> (short) v);
  }

  public static ColumnGen ints() {
    return integral(DataTypes.IntegerType, Integer.MIN_VALUE, Integer.MAX_VALUE, v -> (int) v);
  }

  public static ColumnGen longs() {
    return integral(DataTypes.LongType, Long.MIN_VALUE, Long.MAX_VALUE, v -> v);
  }

  /** Extremes, 0 and ±1; ordinary values in [-10, 10] or anywhere in the type (narrowing wraps uniformly). */
  private static ColumnGen integral(DataType type, long min, long max, LongFunction<Object> box) {
    List<Object> specials = List.of(box.apply(min), box.apply(max), box.apply(0), box.apply(1), box.apply(-1));
    return new ColumnGen(type, specials,
        (r, row) -> box.apply(r.nextBoolean() ? r.nextInt(21) - 10 : r.nextLong()));
  }

  public static ColumnGen floats() {
    List<Object> specials = List.of(Float.NaN, -0.0f, 0.0f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY,
        Float.MIN_VALUE, Float.MIN_NORMAL, Float.MAX_VALUE, -Float.MAX_VALUE, 1.0f, -1.0f);
    return new ColumnGen(DataTypes.FloatType, specials, (r, row) -> (float) ordinaryFloating(r));
  }

  public static ColumnGen doubles() {
    List<Object> specials = List.of(Double.NaN, -0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY,
        Double.MIN_VALUE, Double.MIN_NORMAL, Double.MAX_VALUE, -Double.MAX_VALUE, 1.0, -1.0);
    return new ColumnGen(DataTypes.DoubleType, specials, (r, row) -> ordinaryFloating(r));
  }

  /** Halves of small integers (exact in float) or values of any magnitude from 1e-30 to 1e30. */
  private static double ordinaryFloating(Random r) {
    return r.nextBoolean() ? (r.nextInt(41) - 20) / 2.0 : r.nextGaussian() * Math.pow(10, r.nextInt(61) - 30);
  }

  /** Dates from 0001-01-01 to 9999-12-31, the epoch and its eve, a leap day, the Julian-Gregorian cutover. */
  public static ColumnGen dates() {
    List<Object> specials = List.of(FIRST_DATE, LAST_DATE, LocalDate.EPOCH, LocalDate.EPOCH.minusDays(1),
        LocalDate.of(2000, 2, 29), LocalDate.of(1582, 10, 4), LocalDate.of(1582, 10, 15));
    long first = FIRST_DATE.toEpochDay();
    long span = LAST_DATE.toEpochDay() - first + 1;
    return new ColumnGen(DataTypes.DateType, specials, (r, row) -> r.nextBoolean()
        ? LocalDate.of(2020, 1, 1).plusDays(r.nextInt(10))
        : LocalDate.ofEpochDay(first + r.nextLong(span)));
  }

  /** Microsecond timestamps over the whole range, around the epoch, and on the hour in early 2020. */
  public static ColumnGen timestamps() {
    List<Object> specials = List.of(FIRST_INSTANT, LAST_INSTANT, Instant.EPOCH, Instant.EPOCH.minus(1, ChronoUnit.MICROS),
        Instant.parse("2000-02-29T12:34:56.789012Z"));
    // (ChronoUnit.between counts nanoseconds, which overflow a long over ten thousand years)
    long span = micros(LAST_INSTANT) - micros(FIRST_INSTANT) + 1;
    return new ColumnGen(DataTypes.TimestampType, specials, (r, row) -> r.nextBoolean()
        ? SMALL_DOMAIN_START.plus(r.nextInt(10), ChronoUnit.HOURS)
        : FIRST_INSTANT.plus(r.nextLong(span), ChronoUnit.MICROS));
  }

  private static long micros(Instant instant) {
    return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1_000;
  }

  /** decimal(precision, scale): the largest and smallest values, 0, ± one unit in the last place. */
  public static ColumnGen decimals(int precision, int scale) {
    BigInteger limit = BigInteger.TEN.pow(precision);
    BigInteger largest = limit.subtract(BigInteger.ONE);
    List<Object> specials = List.of(new BigDecimal(largest, scale), new BigDecimal(largest.negate(), scale),
        new BigDecimal(BigInteger.ZERO, scale), new BigDecimal(BigInteger.ONE, scale),
        new BigDecimal(BigInteger.ONE.negate(), scale));
    return new ColumnGen(DataTypes.createDecimalType(precision, scale), specials, (r, row) -> {
      BigInteger unscaled = r.nextBoolean()
          ? BigInteger.valueOf(r.nextInt(2001) - 1000)
          : new BigInteger(limit.bitLength(), r).mod(limit).multiply(BigInteger.valueOf(r.nextBoolean() ? 1 : -1));
      return new BigDecimal(unscaled, scale);
    });
  }

  /** Empty and blank strings, case pairs, 2-, 3- and 4-byte UTF-8, and a long one. */
  public static ColumnGen strings() {
    return new ColumnGen(DataTypes.StringType, stringSpecials(), Gens::ordinaryString);
  }

  private static List<Object> stringSpecials() {
    return List.of("", " ", "a", "A", "abc", "ABC", "abc ", "é", "€", "😀", "aé€😀", "null",
        "😀".repeat(40) + "€".repeat(40) + "x".repeat(40));
  }

  private static String ordinaryString(Random r, int row) {
    if (r.nextBoolean()) return (String) SMALL_STRINGS.get(r.nextInt(SMALL_STRINGS.size()));
    StringBuilder s = new StringBuilder();
    for (int i = r.nextInt(17); i > 0; i--) s.appendCodePoint(ALPHABET[r.nextInt(ALPHABET.length)]);
    return s.toString();
  }

  public static ColumnGen binaries() {
    List<Object> specials = List.of(new byte[0], new byte[] {0}, new byte[] {(byte) 0xff}, new byte[] {0, 0},
        "abc".getBytes(StandardCharsets.UTF_8));
    return new ColumnGen(DataTypes.BinaryType, specials, (r, row) -> {
      byte[] bytes = new byte[r.nextBoolean() ? 1 : r.nextInt(9)];
      if (bytes.length == 1) {
        bytes[0] = (byte) r.nextInt(3);
      } else {
        r.nextBytes(bytes);
      }
      return bytes;
    });
  }

  /** 0, 1, 2, ...: one row per key, never null. */
  public static ColumnGen uniqueLongs() {
    return new ColumnGen(DataTypes.LongType, List.of(), (r, row) -> (long) row).nulls(0);
  }

  /** The value {@code hot} in {@code hotShare} of the rows, the others spread over [0, 1000). */
  public static ColumnGen skewedInts(int hot, double hotShare) {
    return new ColumnGen(DataTypes.IntegerType, List.of(), (r, row) -> r.nextDouble() < hotShare ? hot : r.nextInt(1000))
        .nulls(0.02);
  }

  /** array&lt;int&gt; of up to 4 elements, some null: a type the device does not hold. */
  public static ColumnGen intArrays() {
    ColumnGen elements = ints();
    return new ColumnGen(DataTypes.createArrayType(DataTypes.IntegerType), List.of(List.of()), (r, row) -> {
      List<Object> values = new ArrayList<>();
      for (int i = r.nextInt(5); i > 0; i--) values.add(elements.next(r, row));
      return values;
    });
  }

  /** map&lt;string,int&gt; of up to 3 entries: a type the device does not hold. */
  public static ColumnGen stringToIntMaps() {
    return new ColumnGen(DataTypes.createMapType(DataTypes.StringType, DataTypes.IntegerType), List.of(Map.of()),
        (r, row) -> {
          Map<Object, Object> map = new HashMap<>();
          for (int i = r.nextInt(4); i > 0; i--) map.put(ordinaryString(r, row), r.nextInt(100));
          return map;
        });
  }

  /** Strings under the case-insensitive collation UTF8_LCASE: not binary-comparable, so they stay on the CPU. */
  public static ColumnGen lowercaseCollatedStrings() {
    return new ColumnGen(StringType$.MODULE$.apply("UTF8_LCASE"), stringSpecials(), Gens::ordinaryString);
  }
}
