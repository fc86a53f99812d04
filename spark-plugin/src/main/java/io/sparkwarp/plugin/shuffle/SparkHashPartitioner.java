package io.sparkwarp.plugin.shuffle;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.util.MemoryUtil;
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
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.hash.Murmur3_x86_32;

/**
 * Spark's {@code HashPartitioning} partition ids, {@code pmod(murmur3(keys, 42), n)}, computed over host Arrow vectors
 * bit-identically to Spark, since rows it places are joined with rows Spark's CPU shuffle and bucketed writes placed.
 */
public final class SparkHashPartitioner {
  /** The seed of the Murmur3Hash in HashPartitioning.partitionIdExpression. */
  private static final int SEED = 42;
  private static final VarHandle LONG_BIG_ENDIAN =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);

  private SparkHashPartitioner() {}

  /** Whether rows with a key of this Spark type can be hashed here (otherwise the exchange stays on Spark's CPU). */
  public static boolean supports(DataType type) {
    return type instanceof BooleanType || type instanceof ByteType || type instanceof ShortType
        || type instanceof IntegerType || type instanceof LongType || type instanceof FloatType
        || type instanceof DoubleType || type instanceof DateType || type instanceof TimestampType
        || type instanceof TimestampNTZType || type instanceof DecimalType || type instanceof BinaryType
        // other collations hash a collation key rather than the bytes
        || (type instanceof StringType s && s.isUTF8BinaryCollation());
  }

  /**
   * Writes ids[i] in [0, numPartitions) for rows [0, rows) of the key vectors, whose Spark types are given in order.
   */
  public static void partitionIds(List<FieldVector> keys, List<DataType> types, int numPartitions, int rows,
      int[] ids) {
    if (keys.size() != types.size()) {
      throw new IllegalArgumentException(keys.size() + " key vectors for " + types.size() + " types");
    }
    if (numPartitions <= 0 || rows < 0 || rows > ids.length) {
      throw new IllegalArgumentException(
          "numPartitions " + numPartitions + ", rows " + rows + ", ids of length " + ids.length);
    }
    Arrays.fill(ids, 0, rows, SEED);
    for (int k = 0; k < keys.size(); k++) {
      FieldVector key = keys.get(k);
      if (key.getValueCount() < rows) {
        throw new IllegalArgumentException(
            "key " + k + " has " + key.getValueCount() + " values for " + rows + " rows");
      }
      hashColumn(key, types.get(k), rows, ids);
    }
    for (int i = 0; i < rows; i++) {
      int r = ids[i] % numPartitions;
      ids[i] = r < 0 ? r + numPartitions : r;
    }
  }

  /** Folds one key column into the running hashes; nulls leave a row's hash unchanged, as in Spark. */
  private static void hashColumn(FieldVector v, DataType type, int rows, int[] h) {
    long validity = v.getNullCount() == 0 ? 0 : v.getValidityBufferAddress();
    long data = v.getDataBufferAddress();
    if (type instanceof BooleanType) {
      expect(v, BitVector.class, type);
      for (int i = 0; i < rows; i++) {
        if (valid(validity, i)) h[i] = Murmur3_x86_32.hashInt(bit(data, i), h[i]);
      }
    } else if (type instanceof ByteType) {
      expect(v, TinyIntVector.class, type);
      for (int i = 0; i < rows; i++) {
        if (valid(validity, i)) h[i] = Murmur3_x86_32.hashInt(MemoryUtil.getByte(data + i), h[i]);
      }
    } else if (type instanceof ShortType) {
      expect(v, SmallIntVector.class, type);
      for (int i = 0; i < rows; i++) {
        if (valid(validity, i)) h[i] = Murmur3_x86_32.hashInt(MemoryUtil.getShort(data + 2L * i), h[i]);
      }
    } else if (type instanceof IntegerType || type instanceof DateType) {
      expect(v, type instanceof DateType ? DateDayVector.class : IntVector.class, type);
      for (int i = 0; i < rows; i++) {
        if (valid(validity, i)) h[i] = Murmur3_x86_32.hashInt(MemoryUtil.getInt(data + 4L * i), h[i]);
      }
    } else if (type instanceof LongType || type instanceof TimestampType || type instanceof TimestampNTZType) {
      // a timestamp's vector may carry a zone or not (the device's download and Spark's schema differ there)
      expect(v, type instanceof LongType ? BigIntVector.class : TimeStampVector.class, type);
      for (int i = 0; i < rows; i++) {
        if (valid(validity, i)) h[i] = Murmur3_x86_32.hashLong(MemoryUtil.getLong(data + 8L * i), h[i]);
      }
    } else if (type instanceof FloatType) {
      expect(v, Float4Vector.class, type);
      for (int i = 0; i < rows; i++) {
        if (!valid(validity, i)) continue;
        float f = Float.intBitsToFloat(MemoryUtil.getInt(data + 4L * i));
        // -0.0 hashes as 0.0 and every NaN as the canonical one
        h[i] = Murmur3_x86_32.hashInt(f == -0.0f ? 0 : Float.floatToIntBits(f), h[i]);
      }
    } else if (type instanceof DoubleType) {
      expect(v, Float8Vector.class, type);
      for (int i = 0; i < rows; i++) {
        if (!valid(validity, i)) continue;
        double d = Double.longBitsToDouble(MemoryUtil.getLong(data + 8L * i));
        h[i] = Murmur3_x86_32.hashLong(d == -0.0d ? 0L : Double.doubleToLongBits(d), h[i]);
      }
    } else if (type instanceof DecimalType d) {
      expect(v, DecimalVector.class, type);
      if (d.precision() <= Decimal.MAX_LONG_DIGITS()) {
        // the unscaled value fits a long: the low half of the 16 little-endian bytes
        for (int i = 0; i < rows; i++) {
          if (valid(validity, i)) h[i] = Murmur3_x86_32.hashLong(MemoryUtil.getLong(data + 16L * i), h[i]);
        }
      } else {
        hashWideDecimals(data, validity, rows, h);
      }
    } else if ((type instanceof StringType s && s.isUTF8BinaryCollation()) || type instanceof BinaryType) {
      expect(v, type instanceof BinaryType ? VarBinaryVector.class : VarCharVector.class, type);
      long offsets = v.getOffsetBufferAddress();
      for (int i = 0; i < rows; i++) {
        if (!valid(validity, i)) continue;
        int start = MemoryUtil.getInt(offsets + 4L * i);
        int end = MemoryUtil.getInt(offsets + 4L * (i + 1));
        h[i] = Murmur3_x86_32.hashUnsafeBytes(null, data + start, end - start, h[i]);
      }
    } else {
      throw new IllegalArgumentException("cannot hash partition on " + type.simpleString());
    }
  }

  /**
   * Spark hashes a decimal wider than a long as BigInteger.toByteArray() of its unscaled value: big-endian two's
   * complement in the fewest bytes that keep the sign. Built here in a scratch array rather than through BigInteger.
   */
  private static void hashWideDecimals(long data, long validity, int rows, int[] h) {
    byte[] bytes = new byte[16];
    for (int i = 0; i < rows; i++) {
      if (!valid(validity, i)) continue;
      LONG_BIG_ENDIAN.set(bytes, 0, MemoryUtil.getLong(data + 16L * i + 8));
      LONG_BIG_ENDIAN.set(bytes, 8, MemoryUtil.getLong(data + 16L * i));
      // a leading byte is redundant when it only repeats the sign bit of the byte after it
      int start = 0;
      while (start < 15 && bytes[start] == (byte) (bytes[start + 1] >> 7)) start++;
      h[i] = Murmur3_x86_32.hashUnsafeBytes(bytes, Platform.BYTE_ARRAY_OFFSET + start, 16 - start, h[i]);
    }
  }

  /** Validity 0 stands for "no nulls in the vector". */
  private static boolean valid(long validity, int i) {
    return validity == 0 || bit(validity, i) != 0;
  }

  private static int bit(long address, int i) {
    return (MemoryUtil.getByte(address + (i >> 3)) >> (i & 7)) & 1;
  }

  /** The reads are unchecked, so a vector of another layout than the type's must not get through. */
  private static void expect(FieldVector v, Class<? extends FieldVector> layout, DataType type) {
    if (!layout.isInstance(v)) {
      throw new IllegalArgumentException(
          type.simpleString() + " key in a " + v.getClass().getSimpleName() + ", not a " + layout.getSimpleName());
    }
  }
}
