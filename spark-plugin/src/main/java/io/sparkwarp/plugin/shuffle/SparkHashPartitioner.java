package io.sparkwarp.plugin.shuffle;

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

/**
 * Which key types the device partitions exactly as Spark's {@code HashPartitioning} does ({@code pmod(murmur3(keys,
 * 42), n)}, {@code PartitionPrimitives}): rows the GPU shuffle places are joined with rows Spark's CPU shuffle and
 * bucketed writes placed, so a key the device cannot hash bit for bit keeps Spark's exchange.
 */
public final class SparkHashPartitioner {
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
}
