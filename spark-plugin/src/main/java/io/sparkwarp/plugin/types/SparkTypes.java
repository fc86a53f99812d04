package io.sparkwarp.plugin.types;

import io.sparkwarp.kernels.batch.DeviceType;
import java.util.Optional;
import org.apache.spark.sql.types.BinaryType;
import org.apache.spark.sql.types.BooleanType;
import org.apache.spark.sql.types.ByteType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DateType;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.apache.spark.sql.types.IntegerType;
import org.apache.spark.sql.types.LongType;
import org.apache.spark.sql.types.ShortType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.TimestampNTZType;
import org.apache.spark.sql.types.TimestampType;

/** Spark SQL types to device types, with the reason when a type has no device layout. */
public final class SparkTypes {
  private SparkTypes() {}

  /**
   * The device type of {@code type}, or empty when it has none ({@link #whyNot} says why).
   *
   * @param timeZone the session time zone: Spark's Arrow schema carries it on timestamps
   */
  public static Optional<DeviceType> deviceType(DataType type, String timeZone) {
    if (type instanceof BooleanType) return Optional.of(DeviceType.BOOLEAN);
    if (type instanceof ByteType) return Optional.of(DeviceType.BYTE);
    if (type instanceof ShortType) return Optional.of(DeviceType.SHORT);
    if (type instanceof IntegerType) return Optional.of(DeviceType.INT);
    if (type instanceof LongType) return Optional.of(DeviceType.LONG);
    if (type instanceof FloatType) return Optional.of(DeviceType.FLOAT);
    if (type instanceof DoubleType) return Optional.of(DeviceType.DOUBLE);
    if (type instanceof DateType) return Optional.of(DeviceType.DATE);
    if (type instanceof TimestampType) return Optional.of(DeviceType.timestamp(timeZone));
    if (type instanceof TimestampNTZType) return Optional.of(DeviceType.timestamp(null));
    if (type instanceof DecimalType d && d.precision() <= DeviceType.MAX_WIDE_DECIMAL_PRECISION) {
      return Optional.of(DeviceType.decimal(d.precision(), d.scale()));
    }
    if (type instanceof StringType s && s.supportsBinaryEquality()) return Optional.of(DeviceType.STRING);
    if (type instanceof BinaryType) return Optional.of(DeviceType.BINARY);
    return Optional.empty();
  }

  /** Whether the device can hold values of {@code type}. */
  public static boolean supported(DataType type) {
    return deviceType(type, "UTC").isPresent();
  }

  /** The reason {@code type} stays on the CPU, as a lowercase fact; empty when it is supported. */
  public static Optional<String> whyNot(DataType type) {
    if (supported(type)) return Optional.empty();
    if (type instanceof StringType s) {
      return Optional.of("strings with collation " + s.typeName() + " are not supported (binary collation only)");
    }
    return Optional.of("type " + type.simpleString() + " is not supported on the GPU");
  }
}
