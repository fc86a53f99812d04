package io.sparkwarp.plugin.shuffle;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.Backends;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.memory.DeviceBuffer;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.BoundReference;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeProjection;
import org.apache.spark.sql.catalyst.expressions.codegen.GenerateUnsafeProjection;
import org.apache.spark.sql.catalyst.plans.physical.HashPartitioning;
import org.apache.spark.sql.execution.arrow.ArrowWriter;
import org.apache.spark.sql.execution.arrow.ArrowWriter$;
import org.apache.spark.sql.types.BinaryType$;
import org.apache.spark.sql.types.BooleanType$;
import org.apache.spark.sql.types.ByteType$;
import org.apache.spark.sql.types.CalendarIntervalType$;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.DateType$;
import org.apache.spark.sql.types.DayTimeIntervalType$;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType$;
import org.apache.spark.sql.types.FloatType$;
import org.apache.spark.sql.types.IntegerType$;
import org.apache.spark.sql.types.LongType$;
import org.apache.spark.sql.types.NullType$;
import org.apache.spark.sql.types.ShortType$;
import org.apache.spark.sql.types.StringType$;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.types.TimeType$;
import org.apache.spark.sql.types.TimestampNTZType$;
import org.apache.spark.sql.types.TimestampType$;
import org.apache.spark.sql.types.VariantType$;
import org.apache.spark.sql.types.YearMonthIntervalType$;
import org.apache.spark.sql.util.ArrowUtils;
import org.apache.spark.unsafe.types.UTF8String;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import scala.jdk.javaapi.CollectionConverters;

/**
 * The device's partition ids (the host backend's {@code PartitionPrimitives}, the reference the CUDA kernels are tested
 * against) against Spark's own: HashPartitioning.partitionIdExpression evaluated row by row, both interpreted and as
 * the generated projection the CPU exchange runs, over the Arrow vectors Spark's ArrowWriter writes from the same rows,
 * uploaded. Every supported type with nulls and edge values, and several keys at once.
 */
class SparkHashPartitionerTest {
  private static final int[] PARTITIONS = {1, 7, 200, 1000};
  private static final int ROWS = 1500;
  private static final long FIXED_SEED = 20260415L;
  private static final List<DataType> SUPPORTED = List.of(BooleanType$.MODULE$, ByteType$.MODULE$,
      ShortType$.MODULE$, IntegerType$.MODULE$, LongType$.MODULE$, FloatType$.MODULE$, DoubleType$.MODULE$,
      DateType$.MODULE$, TimestampType$.MODULE$, TimestampNTZType$.MODULE$, DataTypes.createDecimalType(5, 2),
      DataTypes.createDecimalType(18, 6), DataTypes.createDecimalType(19, 0), DataTypes.createDecimalType(38, 10),
      StringType$.MODULE$, BinaryType$.MODULE$);
  private static final String[] STRING_PIECES = {"a", "Z", "0", " ", "é", "日本", "😀", "\u0000", "ß", "\n"};

  private static BufferAllocator allocator;
  /** The host reference of the device's partition kernels (which the GPU tests compare with it). */
  private static Backend backend;

  @BeforeAll
  static void open() {
    allocator = new RootAllocator();
    backend = Backends.open(BackendKind.HOST, BackendOptions.defaults());
  }

  @AfterAll
  static void close() {
    allocator.close();
    backend.close();
  }

  /** A fixed seed for reproducible runs and a fresh one that widens coverage over time; failures print it. */
  static Stream<Long> seeds() {
    return Stream.of(FIXED_SEED, System.nanoTime());
  }

  static Stream<Arguments> typesAndSeeds() {
    return seeds().flatMap(seed -> SUPPORTED.stream().map(type -> Arguments.of(type, seed)));
  }

  @ParameterizedTest
  @MethodSource("typesAndSeeds")
  void singleKeyMatchesSpark(DataType type, long seed) {
    assertTrue(SparkHashPartitioner.supports(type), type::toString);
    checkAgainstSpark(List.of(type), seed, 0.15);
  }

  /** A key without nulls takes the path that skips the validity buffer; one of only nulls hands on the hash. */
  @ParameterizedTest
  @MethodSource("seeds")
  void noNullsAndAllNulls(long seed) {
    for (DataType type : SUPPORTED) {
      checkAgainstSpark(List.of(type), seed, 0);
      checkAgainstSpark(List.of(type, IntegerType$.MODULE$), seed, List.of(1.0, 0.1));
    }
  }

  @ParameterizedTest
  @MethodSource("seeds")
  void severalKeysMatchSpark(long seed) {
    checkAgainstSpark(List.of(StringType$.MODULE$, IntegerType$.MODULE$, DataTypes.createDecimalType(38, 10),
        DoubleType$.MODULE$), seed, 0.15);
    Random random = new Random(seed);
    for (int combination = 0; combination < 12; combination++) {
      List<DataType> types = IntStream.range(0, 2 + random.nextInt(3))
          .mapToObj(k -> SUPPORTED.get(random.nextInt(SUPPORTED.size()))).toList();
      checkAgainstSpark(types, seed + combination, 0.2);
    }
  }

  @Test
  void unsupportedTypes() {
    for (DataType type : List.of(DataTypes.createArrayType(IntegerType$.MODULE$),
        DataTypes.createMapType(StringType$.MODULE$, IntegerType$.MODULE$),
        new StructType().add("a", IntegerType$.MODULE$), CalendarIntervalType$.MODULE$,
        DayTimeIntervalType$.MODULE$.apply(), YearMonthIntervalType$.MODULE$.apply(), NullType$.MODULE$,
        VariantType$.MODULE$, TimeType$.MODULE$.apply(6), StringType$.MODULE$.apply("UTF8_LCASE"),
        StringType$.MODULE$.apply("UNICODE"), StringType$.MODULE$.apply("UTF8_BINARY_RTRIM"))) {
      assertFalse(SparkHashPartitioner.supports(type), type::toString);
    }
  }

  /**
   * Partitions random rows of the key types (with these shares of nulls after the edge values) for every partition
   * count, and asserts every id equals Spark's interpreted and generated ones.
   */
  private static void checkAgainstSpark(List<DataType> types, long seed, double nullShare) {
    checkAgainstSpark(types, seed, types.stream().map(type -> nullShare).toList());
  }

  private static void checkAgainstSpark(List<DataType> types, long seed, List<Double> nullShares) {
    Random random = new Random(seed);
    List<Object[]> columns = IntStream.range(0, types.size())
        .mapToObj(k -> column(types.get(k), random, nullShares.get(k))).toList();
    InternalRow[] rows = new InternalRow[ROWS];
    for (int r = 0; r < ROWS; r++) {
      Object[] values = new Object[types.size()];
      for (int k = 0; k < types.size(); k++) values[k] = columns.get(k)[r];
      rows[r] = new GenericInternalRow(values);
    }

    List<Expression> keys = new ArrayList<>();
    for (int k = 0; k < types.size(); k++) keys.add(new BoundReference(k, types.get(k), true));
    List<Expression> partitionIds = Arrays.stream(PARTITIONS)
        .mapToObj(n -> new HashPartitioning(seq(keys), n).partitionIdExpression()).toList();
    UnsafeProjection generated = GenerateUnsafeProjection.generate(seq(partitionIds), false);
    int[][] expected = new int[PARTITIONS.length][ROWS];
    for (int r = 0; r < ROWS; r++) {
      InternalRow generatedIds = generated.apply(rows[r]);
      for (int p = 0; p < PARTITIONS.length; p++) {
        expected[p][r] = (Integer) partitionIds.get(p).eval(rows[r]);
        int row = r;
        int n = PARTITIONS[p];
        assertEquals(expected[p][r], generatedIds.getInt(p),
            () -> "Spark's generated code, " + where(seed, types, n, rows[row]));
      }
    }

    StructType schema = new StructType();
    for (int k = 0; k < types.size(); k++) schema = schema.add("k" + k, types.get(k), true);
    try (VectorSchemaRoot root =
        VectorSchemaRoot.create(ArrowUtils.toArrowSchema(schema, "UTC", true, false), allocator)) {
      root.allocateNew();
      ArrowWriter writer = ArrowWriter$.MODULE$.create(root);
      for (InternalRow row : rows) writer.write(row);
      writer.finish();
      List<FieldVector> vectors = root.getFieldVectors();
      for (int k = 0; k < types.size(); k++) keepRawFloatBits(vectors.get(k), columns.get(k));

      try (DeviceStream stream = backend.newStream(); DeviceBatch batch = ArrowUpload.upload(backend, vectors, stream);
          DeviceBuffer ids = backend.allocate(4L * ROWS, stream)) {
        for (int p = 0; p < PARTITIONS.length; p++) {
          backend.partitions().hashPartitionIds(batch.columns(), ROWS, PARTITIONS[p], ids, stream);
          for (int r = 0; r < ROWS; r++) {
            int row = r;
            int n = PARTITIONS[p];
            assertEquals(expected[p][r], MemoryUtil.getInt(ids.address() + 4L * r),
                () -> where(seed, types, n, rows[row]));
          }
        }
      }
    }
  }

  private static String where(long seed, List<DataType> types, int numPartitions, InternalRow row) {
    String values = IntStream.range(0, types.size()).mapToObj(k -> show(row.get(k, types.get(k))))
        .collect(Collectors.joining(", "));
    return "seed " + seed + ", keys " + types + ", " + numPartitions + " partitions, row (" + values + ")";
  }

  private static String show(Object value) {
    return value instanceof byte[] bytes ? Arrays.toString(bytes) : String.valueOf(value);
  }

  /** ArrowWriter may not carry a NaN's payload through: the vector gets the exact bits, to test canonicalisation. */
  private static void keepRawFloatBits(FieldVector vector, Object[] values) {
    for (int r = 0; r < values.length; r++) {
      if (values[r] instanceof Float f) {
        MemoryUtil.putInt(vector.getDataBufferAddress() + 4L * r, Float.floatToRawIntBits(f));
      } else if (values[r] instanceof Double d) {
        MemoryUtil.putLong(vector.getDataBufferAddress() + 8L * r, Double.doubleToRawLongBits(d));
      }
    }
  }

  /** Spark's internal values of one column: the type's edge values first, then random ones, with nulls. */
  private static Object[] column(DataType type, Random random, double nullShare) {
    List<Object> edges = edgeValues(type);
    Object[] values = new Object[ROWS];
    for (int r = 0; r < ROWS; r++) {
      boolean isNull = nullShare >= 1 || (r >= edges.size() && random.nextDouble() < nullShare);
      values[r] = isNull ? null : r < edges.size() ? edges.get(r) : randomValue(type, random);
    }
    return values;
  }

  private static List<Object> edgeValues(DataType type) {
    if (type instanceof DecimalType d) {
      BigInteger max = BigInteger.TEN.pow(d.precision()).subtract(BigInteger.ONE);
      List<Object> edges = new ArrayList<>();
      for (BigInteger unscaled : List.of(BigInteger.ZERO, BigInteger.ONE, BigInteger.valueOf(-1), max, max.negate(),
          BigInteger.valueOf(127), BigInteger.valueOf(128), BigInteger.valueOf(-128), BigInteger.valueOf(-129),
          BigInteger.valueOf(255), BigInteger.valueOf(256), BigInteger.valueOf(Long.MAX_VALUE),
          BigInteger.valueOf(Long.MIN_VALUE), BigInteger.ONE.shiftLeft(63), BigInteger.ONE.shiftLeft(64).negate(),
          BigInteger.ONE.shiftLeft(120).subtract(BigInteger.ONE))) {
        if (unscaled.abs().compareTo(max) <= 0) edges.add(decimal(unscaled, d));
      }
      return edges;
    }
    if (type == BooleanType$.MODULE$) return List.of(true, false);
    if (type == ByteType$.MODULE$) return List.of((byte) 0, (byte) -1, (byte) 1, Byte.MIN_VALUE, Byte.MAX_VALUE);
    if (type == ShortType$.MODULE$) {
      return List.of((short) 0, (short) -1, (short) 1, Short.MIN_VALUE, Short.MAX_VALUE);
    }
    if (type == IntegerType$.MODULE$ || type == DateType$.MODULE$) {
      return List.of(0, -1, 1, Integer.MIN_VALUE, Integer.MAX_VALUE);
    }
    if (type == LongType$.MODULE$ || type == TimestampType$.MODULE$ || type == TimestampNTZType$.MODULE$) {
      return List.of(0L, -1L, 1L, Long.MIN_VALUE, Long.MAX_VALUE, (long) Integer.MIN_VALUE - 1);
    }
    if (type == FloatType$.MODULE$) {
      return List.of(0.0f, -0.0f, Float.NaN, Float.intBitsToFloat(0x7fc00001), Float.intBitsToFloat(0xff800123),
          Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, -1.0f, 1.0f, Float.MIN_VALUE, -Float.MIN_VALUE,
          Float.MAX_VALUE, -Float.MAX_VALUE);
    }
    if (type == DoubleType$.MODULE$) {
      return List.of(0.0d, -0.0d, Double.NaN, Double.longBitsToDouble(0x7ff8000000000001L),
          Double.longBitsToDouble(0xfff0000000000abcL), Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -1.0d,
          1.0d, Double.MIN_VALUE, -Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE);
    }
    if (type == StringType$.MODULE$) {
      List<Object> edges = new ArrayList<>();
      for (String s : List.of("", "a", "ab", "abc", "abcd", "abcde", "é", "日本", "😀", "\u0000",
          "naïve 日本語 😀", "x".repeat(65), "日本".repeat(40), "😀".repeat(33))) {
        edges.add(UTF8String.fromString(s));
      }
      edges.add(UTF8String.fromBytes(new byte[] {(byte) 0xff, 0, (byte) 0xc3}));  // not valid UTF-8
      return edges;
    }
    if (type == BinaryType$.MODULE$) {
      byte[] long0 = new byte[100];
      long0[50] = 7;
      return List.of(new byte[0], new byte[] {0}, new byte[] {0, 0, 0}, new byte[] {0, 0, 0, 0},
          new byte[] {0, 1, 0, 0, 0}, new byte[] {-1}, new byte[] {-128, 127, -1, 0, 1, 2, 3}, long0);
    }
    throw new IllegalArgumentException(type.toString());
  }

  private static Object randomValue(DataType type, Random random) {
    // a small range besides the full one, so that equal keys occur
    boolean small = random.nextInt(4) == 0;
    if (type instanceof DecimalType d) {
      BigInteger bound = BigInteger.TEN.pow(small ? Math.min(d.precision(), 3) : d.precision());
      BigInteger unscaled = new BigInteger(bound.bitLength() + 8, random).mod(bound);
      return decimal(random.nextBoolean() ? unscaled : unscaled.negate(), d);
    }
    if (type == BooleanType$.MODULE$) return random.nextBoolean();
    if (type == ByteType$.MODULE$) return (byte) random.nextInt();
    if (type == ShortType$.MODULE$) return (short) (small ? random.nextInt(10) : random.nextInt());
    if (type == IntegerType$.MODULE$ || type == DateType$.MODULE$) {
      return small ? random.nextInt(20) - 10 : random.nextInt();
    }
    if (type == LongType$.MODULE$ || type == TimestampType$.MODULE$ || type == TimestampNTZType$.MODULE$) {
      return small ? (long) random.nextInt(20) - 10 : random.nextLong();
    }
    if (type == FloatType$.MODULE$) {
      return small ? (float) (random.nextInt(20) - 10) : Float.intBitsToFloat(random.nextInt());
    }
    if (type == DoubleType$.MODULE$) {
      return small ? random.nextDouble() * 100 : Double.longBitsToDouble(random.nextLong());
    }
    if (type == StringType$.MODULE$) {
      StringBuilder s = new StringBuilder();
      for (int i = random.nextInt(small ? 4 : 40); i > 0; i--) {
        s.append(STRING_PIECES[random.nextInt(STRING_PIECES.length)]);
      }
      return UTF8String.fromBytes(s.toString().getBytes(StandardCharsets.UTF_8));
    }
    if (type == BinaryType$.MODULE$) {
      byte[] bytes = new byte[random.nextInt(small ? 4 : 90)];
      for (int i = 0; i < bytes.length; i++) bytes[i] = random.nextInt(3) == 0 ? 0 : (byte) random.nextInt();
      return bytes;
    }
    throw new IllegalArgumentException(type.toString());
  }

  /** The decimal as an UnsafeRow hands it to the CPU exchange: a long when it fits, else a BigDecimal. */
  private static Decimal decimal(BigInteger unscaled, DecimalType type) {
    return type.precision() <= Decimal.MAX_LONG_DIGITS()
        ? Decimal.createUnsafe(unscaled.longValueExact(), type.precision(), type.scale())
        : Decimal.apply(new BigDecimal(unscaled, type.scale()), type.precision(), type.scale());
  }

  private static <T> scala.collection.immutable.Seq<T> seq(List<T> list) {
    return CollectionConverters.asScala(list).toSeq();
  }
}
