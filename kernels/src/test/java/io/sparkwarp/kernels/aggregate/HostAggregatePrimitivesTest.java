package io.sparkwarp.kernels.aggregate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.batch.UnsupportedTypeException;
import io.sparkwarp.kernels.testing.BackendTestBase;
import io.sparkwarp.kernels.testing.RandomVectors;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.BiConsumer;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The host reference aggregation against hand-computed groups: Spark's grouping, null and overflow rules. */
class HostAggregatePrimitivesTest extends BackendTestBase {
  private final List<FieldVector> vectors = new ArrayList<>();

  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  @AfterEach
  void closeVectors() {
    Closeables.closeAll(vectors);
    vectors.clear();
  }

  private IntVector ints(Integer... values) {
    IntVector v = new IntVector("i", pageable);
    return filled(v, values, v::set);
  }

  private BigIntVector longs(Long... values) {
    BigIntVector v = new BigIntVector("l", pageable);
    return filled(v, values, v::set);
  }

  private Float8Vector doubles(Double... values) {
    Float8Vector v = new Float8Vector("d", pageable);
    return filled(v, values, v::set);
  }

  private DecimalVector decimals(int precision, int scale, String... values) {
    DecimalVector v = new DecimalVector("m", pageable, precision, scale);
    return filled(v, values, (i, x) -> v.set(i, new BigDecimal(x)));
  }

  /** {@code v} holding {@code values} (null for null), closed after the test. */
  private <V extends BaseFixedWidthVector, T> V filled(V v, T[] values, BiConsumer<Integer, T> set) {
    v.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) v.setNull(i);
      else set.accept(i, values[i]);
    }
    v.setValueCount(values.length);
    vectors.add(v);
    return v;
  }

  private List<List<String>> run(List<FieldVector> keys, List<FieldVector> inputs, Aggregate... aggregates) {
    return AggregateTesting.aggregate(backend, keys, inputs, List.of(aggregates), pageable);
  }

  @Test
  void groupsNullKeysTogetherAndCountsSumsAndExtremes() {
    IntVector k = ints(1, 2, null, 1, null, 2, 1);
    BigIntVector x = longs(10L, null, 5L, 7L, null, null, -3L);
    List<List<String>> out = run(List.of(k), List.of(x), Aggregate.countAll(), Aggregate.count(0),
        Aggregate.sum(0, DeviceType.LONG), Aggregate.min(0, DeviceType.LONG), Aggregate.max(0, DeviceType.LONG));
    assertEquals(List.of(
        List.of("1", "3", "3", "14", "-3", "10"),
        List.of("2", "2", "0", "null", "null", "null"),
        List.of("null", "2", "1", "5", "5", "5"),
        List.of("overflow=false", "overflow=false", "overflow=false", "overflow=false", "overflow=false")), out);
  }

  @Test
  void extremesOfStringsByTheirUnsignedBytes() {
    IntVector k = ints(1, 2, null, 1, null, 2, 1, 3, 1);
    VarCharVector x = strings("b", null, "é", "", null, null, "ab", "zz", "\uD83D\uDE00");
    BitVector mask = new BitVector("m", pageable);
    mask.allocateNew(9);
    for (int i = 0; i < 9; i++) mask.set(i, i % 2);
    mask.setValueCount(9);
    vectors.add(mask);
    // unsigned bytes: "" < "ab" < "b" < the emoji (0xF0...); key 1 has "b", "", "ab" and the emoji, and under the
    // mask (odd rows) only ""
    List<List<String>> out = run(List.of(k), List.of(x, mask), Aggregate.min(0, DeviceType.STRING),
        Aggregate.max(0, DeviceType.STRING), new Aggregate(AggregateOp.MAX, 0, List.of(), DeviceType.STRING, 1, true,
            false, false), Aggregate.count(0));
    assertEquals(List.of(
        List.of("1", "", "\uD83D\uDE00", "", "4"),
        List.of("2", "null", "null", "null", "0"),
        List.of("3", "zz", "zz", "zz", "1"),
        List.of("null", "é", "é", "null", "1"),
        List.of("overflow=false", "overflow=false", "overflow=false", "overflow=false")), out);
  }

  @Test
  void extremesOfWideDecimalsByValue() {
    IntVector k = ints(1, 1, 2, 1, null, 2);
    DecimalVector x = decimals(38, 2, "-12345678901234567890123.45", "3.00", null, "99999999999999999999999999.99",
        "-0.01", null);
    assertEquals(List.of(
        List.of("1", "-12345678901234567890123.45", "99999999999999999999999999.99"),
        List.of("2", "null", "null"),
        List.of("null", "-0.01", "-0.01"),
        List.of("overflow=false", "overflow=false")),
        run(List.of(k), List.of(x), Aggregate.min(0, DeviceType.decimal(38, 2)),
            Aggregate.max(0, DeviceType.decimal(38, 2))));
  }

  @Test
  void stringExtremesMatchJavaOnRandomStrings() {
    Random rnd = new Random();
    for (int rows : new int[] {0, 1, 40, 3000}) {
      int groups = 1 + rnd.nextInt(50);
      Integer[] keys = new Integer[rows];
      String[] values = new String[rows];
      for (int i = 0; i < rows; i++) {
        keys[i] = rnd.nextInt(20) == 0 ? null : rnd.nextInt(groups);
        values[i] = rnd.nextInt(5) == 0 ? null
            : new String(RandomVectors.randomString(rnd, 6, false), StandardCharsets.UTF_8);
      }
      Map<Integer, String[]> expected = new HashMap<>();
      for (int i = 0; i < rows; i++) {
        String[] mm = expected.computeIfAbsent(keys[i], g -> new String[2]);
        if (values[i] == null) continue;
        if (mm[0] == null || compareBytes(values[i], mm[0]) < 0) mm[0] = values[i];
        if (mm[1] == null || compareBytes(values[i], mm[1]) > 0) mm[1] = values[i];
      }
      List<List<String>> want = new ArrayList<>();
      expected.forEach((g, mm) -> want.add(List.of(String.valueOf(g), String.valueOf(mm[0]), String.valueOf(mm[1]))));
      want.sort(Comparator.comparing(Object::toString));
      want.add(List.of("overflow=false", "overflow=false"));
      assertEquals(want, run(List.of(ints(keys)), List.of(strings(values)), Aggregate.min(0, DeviceType.STRING),
          Aggregate.max(0, DeviceType.STRING)), rows + " rows");
    }
  }

  private static int compareBytes(String a, String b) {
    return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));
  }

  private VarCharVector strings(String... values) {
    VarCharVector v = new VarCharVector("s", pageable);
    v.allocateNew(values.length);
    for (int i = 0; i < values.length; i++) {
      if (values[i] == null) v.setNull(i);
      else v.setSafe(i, values[i].getBytes(StandardCharsets.UTF_8));
    }
    v.setValueCount(values.length);
    vectors.add(v);
    return v;
  }

  @Test
  void groupsNanWithNanAndNegativeZeroWithZero() {
    Float8Vector k = doubles(Double.NaN, -0.0, 0.0, Double.longBitsToDouble(0x7ff8000000000001L), 1.5);
    List<List<String>> out = run(List.of(k), List.of(), Aggregate.countAll());
    assertEquals(List.of(List.of("0.0", "2"), List.of("1.50000000000e+00", "1"), List.of("NaN", "2"),
        List.of("overflow=false")), out);
  }

  @Test
  void globalAggregateOverNoRowsIsOneRow() {
    BigIntVector x = longs();
    BitVector b = new BitVector("b", pageable);
    b.setValueCount(0);
    vectors.add(b);
    List<List<String>> out = run(List.of(), List.of(x, b), Aggregate.countAll(), Aggregate.sum(0, DeviceType.LONG),
        Aggregate.sum(0, DeviceType.DOUBLE).identityWhenEmpty(), Aggregate.min(1, DeviceType.BOOLEAN)
            .identityWhenEmpty(), Aggregate.max(1, DeviceType.BOOLEAN).identityWhenEmpty());
    assertEquals(List.of(List.of("0", "null", "0.0", "true", "false"), List.of("overflow=false", "overflow=false",
        "overflow=false", "overflow=false", "overflow=false")), out);
    assertEquals(List.of(List.of()), run(List.of(ints()), List.of()));
  }

  @Test
  void longSumsWrapAroundAndReportIt() {
    BigIntVector x = longs(Long.MAX_VALUE, 1L);
    assertEquals(List.of(List.of(String.valueOf(Long.MIN_VALUE)), List.of("overflow=true")),
        run(List.of(), List.of(x), Aggregate.sum(0, DeviceType.LONG)));
    // the total decides, not the order: MAX + 1 - 1 fits
    BigIntVector y = longs(Long.MAX_VALUE, 1L, -1L);
    assertEquals(List.of(List.of(String.valueOf(Long.MAX_VALUE)), List.of("overflow=false")),
        run(List.of(), List.of(y), Aggregate.sum(0, DeviceType.LONG)));
  }

  @Test
  void decimalSumsBeyondTheirPrecisionAreNull() {
    DecimalVector x = decimals(12, 2, "9999999999.99", "9999999999.99", "-0.01");
    DecimalVector m = decimals(38, 2, "999999999999999999999999999999999999.99", "0.01", null);
    IntVector k = ints(1, 1, 2);
    List<List<String>> out = run(List.of(k), List.of(x, m), Aggregate.sum(0, DeviceType.decimal(12, 2)),
        Aggregate.sum(0, DeviceType.decimal(22, 2)), Aggregate.sum(1, DeviceType.decimal(38, 2)),
        Aggregate.sum(1, DeviceType.decimal(38, 2)).poisonedByNull());
    assertEquals(List.of(
        List.of("1", "null", "19999999999.98", "null", "null"),
        List.of("2", "-0.01", "-0.01", "null", "null"),
        List.of("overflow=true", "overflow=false", "overflow=true", "overflow=true")), out);
  }

  @Test
  void sumsOfProductsAreExact() {
    DecimalVector price = decimals(12, 2, "9999999999.99", "2.50", null, "-1.00");
    DecimalVector rate = decimals(13, 2, "99999999999.99", "0.10", "1.00", "3.00");
    DecimalVector tax = decimals(13, 2, "1.08", "1.00", "1.00", null);
    List<List<String>> out = run(List.of(), List.of(price, rate, tax),
        Aggregate.sumOfProducts(0, List.of(1), DeviceType.decimal(26, 4)),
        Aggregate.sumOfProducts(0, List.of(1, 2), DeviceType.decimal(38, 6)));
    assertEquals(List.of(List.of("999999999998899999997.2501", "1079999999998812000000.250108"),
        List.of("overflow=false", "overflow=false")), out);
  }

  @Test
  void masksAndZeroStartingSums() {
    IntVector k = ints(1, 1, 2, 2);
    BigIntVector x = longs(4L, 6L, null, 9L);
    BitVector keep = new BitVector("keep", pageable);
    keep.allocateNew(4);
    keep.set(0, 1);
    keep.set(1, 0);
    keep.setNull(2);
    keep.set(3, 0);
    keep.setValueCount(4);
    vectors.add(keep);
    List<List<String>> out = run(List.of(k), List.of(x, keep), Aggregate.countAll().where(1, true),
        Aggregate.sum(0, DeviceType.LONG).where(1, true), Aggregate.sum(0, DeviceType.LONG).where(1, true).identityWhenEmpty(),
        Aggregate.min(1, DeviceType.BOOLEAN), Aggregate.sum(0, DeviceType.LONG).where(1, false));
    assertEquals(List.of(List.of("1", "1", "4", "4", "false", "6"), List.of("2", "0", "null", "0", "false", "9"),
        List.of("overflow=false", "overflow=false", "overflow=false", "overflow=false", "overflow=false")), out);
  }

  @Test
  void extremesOfDoublesPutNanLast() {
    Float8Vector x = doubles(1.0, Double.NaN, -0.0, 0.0, Double.NEGATIVE_INFINITY);
    assertEquals(List.of(List.of("-Infinity", "NaN"), List.of("overflow=false", "overflow=false")),
        run(List.of(), List.of(x), Aggregate.min(0, DeviceType.DOUBLE), Aggregate.max(0, DeviceType.DOUBLE)));
  }

  @Test
  void stringKeysGroupByBytesAndSeveralKeysCombine() {
    VarCharVector s = new VarCharVector("s", pageable);
    s.allocateNew();
    String[] words = {"a", "b", "a", "", "b"};
    for (int i = 0; i < words.length; i++) s.setSafe(i, words[i].getBytes(StandardCharsets.UTF_8));
    s.setValueCount(words.length);
    vectors.add(s);
    IntVector k = ints(1, 1, 1, 1, 2);
    List<List<String>> out = run(List.of(s, k), List.of(), Aggregate.countAll());
    assertEquals(List.of(List.of("", "1", "1"), List.of("a", "1", "2"), List.of("b", "1", "1"),
        List.of("b", "2", "1"), List.of("overflow=false")), out);
  }

  @Test
  void meansRoundHalfUpAndAreNullForNoRowsOrAnOverflowedSum() {
    DecimalVector sums = decimals(22, 2, "10.00", "-10.00", "0.05", "5.00", null, "99999999999999999999.99");
    BigIntVector counts = longs(3L, 3L, 8L, 0L, 2L, 1L);
    assertEquals(List.of("3.333333", "-3.333333", "0.006250", "null", "null", "null", "overflow=true"),
        mean(sums, counts, DeviceType.decimal(16, 6)));
    Float8Vector dsums = doubles(1.0, null, 3.0);
    BigIntVector dcounts = longs(4L, 1L, null);
    assertEquals(List.of("2.50000000000e-01", "null", "null", "overflow=true"),
        mean(dsums, dcounts, DeviceType.DOUBLE));
  }

  /** Each row's mean as canonical text, then the overflow flag. */
  private List<String> mean(FieldVector sums, FieldVector counts, DeviceType type) {
    return AggregateTesting.mean(backend, sums, counts, type, pageable);
  }

  @Test
  void refusesWhatTheDeviceDoesNotAggregate() {
    DecimalVector m = decimals(20, 0, "1");
    assertThrows(UnsupportedTypeException.class, () -> run(List.of(m), List.of(), Aggregate.countAll()));
    assertThrows(UnsupportedTypeException.class, () -> run(List.of(), List.of(m),
        Aggregate.sum(0, DeviceType.decimal(30, 1))));
    assertThrows(UnsupportedTypeException.class, () -> mean(m, longs(1L), DeviceType.DOUBLE));
  }
}
