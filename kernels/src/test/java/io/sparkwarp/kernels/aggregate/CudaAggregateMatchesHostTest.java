package io.sparkwarp.kernels.aggregate;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.testing.CudaVsHostTestBase;
import io.sparkwarp.kernels.testing.RandomVectors;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The CUDA aggregation against the host reference on fresh random input, for both accumulation modes: one group,
 * 4 groups and group counts from 1 to 33 with a null key among them (shared memory, 32 copies of the accumulators
 * a block down to 4 as the groups grow), thousands and many groups (global atomics), a hot key with nulls, several
 * key columns of every kind (floats with NaN and -0.0, strings, booleans), and no keys at all; sizes around warp
 * and block boundaries, empty input included. Every aggregate kind runs over inputs of every type it takes, with
 * nulls, masks and overflowing sums; results are compared as sorted groups and overflow flags.
 */
@Tag("gpu")
class CudaAggregateMatchesHostTest extends CudaVsHostTestBase {
  static final int[] SIZES = {0, 1, 33, 1000, 100_003, 1_000_003};
  /**
   * Shapes with many groups stop at 300 K rows (still 150 K groups: global atomics): the host reference's sorted
   * group listing, not the GPU, took minutes for them at a million rows.
   */
  static final int MANY_GROUPS_MAX_ROWS = 300_007;

  enum Shape { GLOBAL, ONE_GROUP, FOUR_GROUPS, THOUSANDS, MANY, SKEWED, SEVERAL_KEYS }

  private static final DeviceType DEC_12 = DeviceType.decimal(12, 2);
  private static final DeviceType DEC_22 = DeviceType.decimal(22, 2);
  private static final DeviceType DEC_38 = DeviceType.decimal(38, 2);

  private IntVector intKeys(int n, java.util.function.IntUnaryOperator key, double nulls) {
    IntVector v = new IntVector("k", allocator);
    v.allocateNew(n);
    for (int i = 0; i < n; i++) {
      if (rnd.nextDouble() < nulls) v.setNull(i);
      else v.set(i, key.applyAsInt(i));
    }
    v.setValueCount(n);
    return v;
  }

  private List<FieldVector> keys(Shape shape, int n) {
    return switch (shape) {
      case GLOBAL -> List.of();
      case ONE_GROUP -> List.of(intKeys(n, i -> 7, 0));
      case FOUR_GROUPS -> List.of(intKeys(n, i -> rnd.nextInt(4), 0));
      case THOUSANDS -> List.of(intKeys(n, i -> rnd.nextInt(3000), 0.01));
      case MANY -> List.of(intKeys(n, i -> rnd.nextInt(Math.max(1, n / 2)), 0.01));
      case SKEWED -> List.of(intKeys(n, i -> rnd.nextInt(3) == 0 ? -1 : rnd.nextInt(Math.max(1, n)), 0.1));
      case SEVERAL_KEYS -> List.of(
          RandomVectors.random(DeviceType.DOUBLE, n, 0.05, 4, rnd, allocator),
          RandomVectors.random(DeviceType.BOOLEAN, n, 0.05, 4, rnd, allocator),
          RandomVectors.random(DeviceType.STRING, n, 0.05, 2, rnd, allocator),
          RandomVectors.random(DeviceType.SHORT, n, 0.05, 4, rnd, allocator));
    };
  }

  /** Integer-valued doubles (exact sums in any order) with some nulls and NaN. */
  private Float8Vector summableDoubles(int n) {
    Float8Vector v = new Float8Vector("d", allocator);
    v.allocateNew(n);
    for (int i = 0; i < n; i++) {
      int u = rnd.nextInt(100);
      if (u < 5) v.setNull(i);
      else v.set(i, u == 5 ? Double.NaN : rnd.nextInt(2_000_001) - 1_000_000);
    }
    v.setValueCount(n);
    return v;
  }

  /** Longs mostly small, with a rare extreme so some groups overflow. */
  private BigIntVector longs(int n) {
    BigIntVector v = new BigIntVector("l", allocator);
    v.allocateNew(n);
    for (int i = 0; i < n; i++) {
      int u = rnd.nextInt(100_000);
      if (u < 5_000) v.setNull(i);
      else v.set(i, u == 5_000 ? Long.MAX_VALUE : rnd.nextInt() * 1000L);
    }
    v.setValueCount(n);
    return v;
  }

  @ParameterizedTest
  @EnumSource(Shape.class)
  void groupsMatchTheHost(Shape shape) {
    boolean manyGroups = shape == Shape.MANY || shape == Shape.SKEWED || shape == Shape.SEVERAL_KEYS;
    for (int size : SIZES) {
      int n = manyGroups ? Math.min(size, MANY_GROUPS_MAX_ROWS) : size;
      List<FieldVector> vectors = new ArrayList<>();
      try {
        List<FieldVector> keys = keys(shape, n);
        vectors.addAll(keys);
        List<FieldVector> inputs = inputs(n);
        vectors.addAll(inputs);
        assertEquals(AggregateTesting.mean(host, inputs.get(2), inputs.get(0), DeviceType.decimal(16, 6), allocator),
            AggregateTesting.mean(cuda, inputs.get(2), inputs.get(0), DeviceType.decimal(16, 6), allocator),
            "mean n=" + n);
        assertEquals(AggregateTesting.mean(host, inputs.get(3), inputs.get(0), DeviceType.decimal(38, 6), allocator),
            AggregateTesting.mean(cuda, inputs.get(3), inputs.get(0), DeviceType.decimal(38, 6), allocator),
            "wide mean n=" + n);
        assertEquals(AggregateTesting.mean(host, inputs.get(4), inputs.get(0), DeviceType.DOUBLE, allocator),
            AggregateTesting.mean(cuda, inputs.get(4), inputs.get(0), DeviceType.DOUBLE, allocator),
            "double mean n=" + n);
        assertAggregatesMatch(shape + " n=" + n, keys, inputs);
      } finally {
        Closeables.closeAll(vectors);
      }
    }
  }

  /**
   * The shared-memory accumulation at group counts up to 33, one of the groups the null key: 32 copies of the
   * accumulators a block at the fewest groups, 16, 8 and then 4 as they grow (lanes l and l + copies then share a
   * copy). Sizes: less than a warp, a partial block tile, many tiles a block.
   */
  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33})
  void fewGroupsMatchTheHost(int groups) {
    for (int n : new int[] {33, 1000, 100_003}) {
      List<FieldVector> vectors = new ArrayList<>();
      try {
        List<FieldVector> keys = List.of(intKeys(n, groups));
        vectors.addAll(keys);
        List<FieldVector> inputs = inputs(n);
        vectors.addAll(inputs);
        assertAggregatesMatch(groups + " groups n=" + n, keys, inputs);
      } finally {
        Closeables.closeAll(vectors);
      }
    }
  }

  /** Keys uniform over {@code groups} groups, the last of them the null key. */
  private IntVector intKeys(int n, int groups) {
    IntVector v = new IntVector("k", allocator);
    v.allocateNew(n);
    for (int i = 0; i < n; i++) {
      int key = rnd.nextInt(groups);
      if (key == groups - 1) v.setNull(i);
      else v.set(i, key * 7919 - 100);
    }
    v.setValueCount(n);
    return v;
  }

  /** Inputs of every type the aggregates take, with nulls and extremes. */
  private List<FieldVector> inputs(int n) {
    List<FieldVector> inputs = new ArrayList<>();
    try {
      inputs.add(longs(n));                                                            // 0
      inputs.add(RandomVectors.random(DeviceType.INT, n, 0.1, 4, rnd, allocator));     // 1
      inputs.add(RandomVectors.random(DEC_12, n, 0.1, 4, rnd, allocator));             // 2
      inputs.add(RandomVectors.random(DEC_38, n, 0.1, 4, rnd, allocator));             // 3
      inputs.add(summableDoubles(n));                                                  // 4
      inputs.add(RandomVectors.random(DeviceType.FLOAT, n, 0.1, 4, rnd, allocator));   // 5
      inputs.add(RandomVectors.random(DeviceType.DATE, n, 0.1, 4, rnd, allocator));    // 6
      inputs.add(RandomVectors.random(DeviceType.BOOLEAN, n, 0.1, 4, rnd, allocator)); // 7
      inputs.add(RandomVectors.random(DeviceType.STRING, n, 0.1, 4, rnd, allocator));  // 8
      inputs.add(RandomVectors.random(DeviceType.DOUBLE, n, 0.1, 4, rnd, allocator));  // 9
      inputs.add(RandomVectors.random(DeviceType.BYTE, n, 0.1, 4, rnd, allocator));    // 10
      inputs.add(RandomVectors.random(DeviceType.decimal(18, 4), n, 0.1, 4, rnd, allocator));  // 11
      inputs.add(RandomVectors.random(DeviceType.decimal(5, 2), n, 0.1, 4, rnd, allocator));   // 12
      inputs.add(RandomVectors.random(DeviceType.SHORT, n, 0.1, 4, rnd, allocator));   // 13
      return inputs;
    } catch (RuntimeException e) {
      Closeables.closeAll(inputs);
      throw e;
    }
  }

  /**
   * Every aggregate kind over inputs of every type it takes, on both backends, compared as sorted groups and
   * overflow flags: two aggregations, as one takes at most AggregatePrimitives.MAX_AGGREGATES.
   */
  private void assertAggregatesMatch(String what, List<FieldVector> keys, List<FieldVector> inputs) {
    List<Aggregate> countsAndSums = List.of(
        Aggregate.countAll(), Aggregate.count(8), Aggregate.count(3),
        Aggregate.sum(0, DeviceType.LONG), Aggregate.sum(1, DeviceType.LONG), Aggregate.sum(1, DeviceType.DOUBLE)
            .identityWhenEmpty(),
        Aggregate.sum(2, DEC_22), Aggregate.sum(2, DEC_12), Aggregate.sum(3, DEC_38),
        Aggregate.sum(3, DEC_38).poisonedByNull(), Aggregate.sum(4, DeviceType.DOUBLE),
        Aggregate.sum(13, DeviceType.LONG));
    List<Aggregate> extremesAndProducts = List.of(
        Aggregate.sum(10, DeviceType.LONG).where(7, true), Aggregate.countAll().where(7, false),
        Aggregate.min(7, DeviceType.BOOLEAN).identityWhenEmpty().where(7, true),
        Aggregate.min(0, DeviceType.LONG), Aggregate.max(1, DeviceType.INT), Aggregate.min(5, DeviceType.FLOAT),
        Aggregate.max(5, DeviceType.FLOAT), Aggregate.min(9, DeviceType.DOUBLE),
        Aggregate.max(9, DeviceType.DOUBLE), Aggregate.max(6, DeviceType.DATE),
        Aggregate.min(7, DeviceType.BOOLEAN), Aggregate.max(7, DeviceType.BOOLEAN),
        Aggregate.min(10, DeviceType.BYTE), Aggregate.max(11, DeviceType.decimal(18, 4)),
        Aggregate.max(13, DeviceType.SHORT),
        Aggregate.sumOfProducts(2, List.of(11), DeviceType.decimal(38, 6)),
        Aggregate.sumOfProducts(2, List.of(12, 11), DeviceType.decimal(38, 8)),
        // strings and wide decimals through RankedExtremes: ranks from the device sort, INT extremes, a gather
        Aggregate.min(8, DeviceType.STRING), Aggregate.max(8, DeviceType.STRING).where(7, true),
        Aggregate.min(3, DEC_38), Aggregate.max(3, DEC_38));
    for (List<Aggregate> aggregates : List.of(countsAndSums, extremesAndProducts)) {
      List<List<String>> expected = AggregateTesting.aggregate(host, keys, inputs, aggregates, allocator);
      List<List<String>> actual = AggregateTesting.aggregate(cuda, keys, inputs, aggregates, allocator);
      assertEquals(expected.size(), actual.size(), what + ": groups");
      for (int i = 0; i < expected.size(); i++) {
        assertEquals(expected.get(i), actual.get(i), what + ": group " + i);
      }
    }
  }
}
