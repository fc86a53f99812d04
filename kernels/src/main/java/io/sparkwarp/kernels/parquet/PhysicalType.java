package io.sparkwarp.kernels.parquet;

/**
 * How a column's values are stored: Parquet's physical types the device decodes, and two stored forms of them that
 * convert on the way (ordinals shared with {@code parquet.cu}).
 */
public enum PhysicalType {
  BOOLEAN, INT32, INT64, FLOAT, DOUBLE, FIXED_LEN_BYTE_ARRAY, BYTE_ARRAY,
  /** Timestamps of Impala, Hive and older Spark: nanoseconds in the day (8 bytes), then the Julian day (4 bytes). */
  INT96,
  /** INT32 holding an unsigned 32-bit integer: zero-extended into a long. */
  UINT32,
  /** INT64 timestamps in milliseconds: times 1000 into microseconds, an overflow an error (as Spark's reader). */
  INT64_MILLIS,
  /** INT64 holding an unsigned 64-bit integer: zero-extended into a 128-bit decimal (Spark's decimal(20,0)). */
  UINT64;

  /** The Julian day of 1970-01-01, and microseconds per day: what INT96 timestamps count from and in. */
  public static final long JULIAN_DAY_OF_EPOCH = 2_440_588;
  public static final long MICROS_PER_DAY = 86_400_000_000L;

  /** Bytes of one PLAIN value: 0 for bit-packed booleans and variable-length byte arrays. */
  public int width(int typeLength) {
    return switch (this) {
      case INT32, FLOAT, UINT32 -> 4;
      case INT64, DOUBLE, INT64_MILLIS, UINT64 -> 8;
      case FIXED_LEN_BYTE_ARRAY -> typeLength;
      case INT96 -> 12;
      case BOOLEAN, BYTE_ARRAY -> 0;
    };
  }

  /**
   * An INT96 timestamp as microseconds since the epoch, as Spark's {@code DateTimeUtils.fromJulianDay} computes it
   * (division truncating towards zero, long arithmetic wrapping).
   */
  public static long int96Micros(long nanosOfDay, int julianDay) {
    return (julianDay - JULIAN_DAY_OF_EPOCH) * MICROS_PER_DAY + nanosOfDay / 1000;
  }
}
