package io.sparkwarp.parquet;

import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.parquet.ColumnSpec;
import io.sparkwarp.kernels.parquet.PhysicalType;
import java.util.Locale;
import java.util.Optional;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.DecimalLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.IntLogicalTypeAnnotation;
import org.apache.parquet.schema.LogicalTypeAnnotation.TimestampLogicalTypeAnnotation;
import org.apache.parquet.schema.PrimitiveType;

/**
 * Which Parquet column types decode on the device into which device types: the pairs Spark's own reader maps one to
 * one (a physical type with its annotation), and the widenings of Spark's reader that keep the stored value (a 32-bit
 * integer read as a long, a decimal read with more digits at the same scale: a table whose column type grew). Other
 * widenings (float to double, a decimal's scale) are a reason the scan stays on the CPU. Unsigned integers are read
 * one size up (64-bit ones as decimal(20,0)); unsigned 32- and 64-bit integers and millisecond timestamps convert on
 * the device. Nanosecond timestamps read as longs, as Spark reads them with spark.sql.legacy.parquet.nanosAsLong
 * ({@link ScanSupport} refuses them without it).
 */
public final class ColumnMapping {
  private ColumnMapping() {}

  /** Why a Parquet column of type {@code file} cannot be read on the device as {@code want}, or empty. */
  public static Optional<String> whyNot(PrimitiveType file, DeviceType want) {
    LogicalTypeAnnotation a = file.getLogicalTypeAnnotation();
    boolean ok = switch (file.getPrimitiveTypeName()) {
      case BOOLEAN -> want.kind() == DeviceType.Kind.BOOLEAN && a == null;
      case INT32 -> switch (want.kind()) {
        case BYTE -> signedInt(a, 8);
        // Spark reads unsigned 8- and 16-bit integers one size up; their stored values fit as they are
        case SHORT -> signedInt(a, 16) || unsignedInt(a, 8);
        case INT -> a == null || signedInt(a, 32) || unsignedInt(a, 16);
        case LONG -> a == null || signedInt(a, 32) || signedInt(a, 16) || signedInt(a, 8) || unsignedInt(a, 32);
        case DATE -> a instanceof LogicalTypeAnnotation.DateLogicalTypeAnnotation;
        case DECIMAL -> decimal(a, want);
        default -> false;
      };
      case INT64 -> switch (want.kind()) {
        case LONG -> a == null || signedInt(a, 64) || nanos(a);
        case TIMESTAMP -> a instanceof TimestampLogicalTypeAnnotation t
            && t.getUnit() != LogicalTypeAnnotation.TimeUnit.NANOS && t.isAdjustedToUTC() == (want.timeZone() != null);
        case DECIMAL -> decimal(a, want);
        // Spark's decimal(20,0) holds every unsigned 64-bit value
        case DECIMAL128 -> unsignedInt(a, 64) && want.precision() == 20 && want.scale() == 0;
        default -> false;
      };
      case FLOAT -> want.kind() == DeviceType.Kind.FLOAT && a == null;
      case DOUBLE -> want.kind() == DeviceType.Kind.DOUBLE && a == null;
      case FIXED_LEN_BYTE_ARRAY -> want.kind() == DeviceType.Kind.DECIMAL && decimal(a, want)
          && file.getTypeLength() <= 8;
      case BINARY -> (want.kind() == DeviceType.Kind.STRING || want.kind() == DeviceType.Kind.BINARY)
          && (a == null || a instanceof LogicalTypeAnnotation.StringLogicalTypeAnnotation);
      // Spark reads INT96 as TimestampType only (spark.sql.parquet.int96AsTimestamp, on by default)
      case INT96 -> want.kind() == DeviceType.Kind.TIMESTAMP && want.timeZone() != null;
    };
    return ok ? Optional.empty() : Optional.of("parquet type " + describe(file) + " read as " + want
        + " is not decoded on the GPU");
  }

  /** The device decoding of a column {@link #whyNot} accepted. */
  public static ColumnSpec spec(PrimitiveType file, DeviceType want) {
    PhysicalType physical = switch (file.getPrimitiveTypeName()) {
      case BOOLEAN -> PhysicalType.BOOLEAN;
      case INT32 -> file.getLogicalTypeAnnotation() instanceof IntLogicalTypeAnnotation i && !i.isSigned()
          && i.getBitWidth() == 32 ? PhysicalType.UINT32 : PhysicalType.INT32;
      case INT64 -> {
        LogicalTypeAnnotation a = file.getLogicalTypeAnnotation();
        if (unsignedInt(a, 64)) yield PhysicalType.UINT64;
        yield a instanceof TimestampLogicalTypeAnnotation t && t.getUnit() == LogicalTypeAnnotation.TimeUnit.MILLIS
            ? PhysicalType.INT64_MILLIS : PhysicalType.INT64;
      }
      case FLOAT -> PhysicalType.FLOAT;
      case DOUBLE -> PhysicalType.DOUBLE;
      case FIXED_LEN_BYTE_ARRAY -> PhysicalType.FIXED_LEN_BYTE_ARRAY;
      case BINARY -> PhysicalType.BYTE_ARRAY;
      case INT96 -> PhysicalType.INT96;
    };
    return new ColumnSpec(physical, physical == PhysicalType.FIXED_LEN_BYTE_ARRAY ? file.getTypeLength() : 0, want);
  }

  private static boolean signedInt(LogicalTypeAnnotation a, int bits) {
    return a instanceof IntLogicalTypeAnnotation i && i.isSigned() && i.getBitWidth() == bits;
  }

  private static boolean unsignedInt(LogicalTypeAnnotation a, int bits) {
    return a instanceof IntLogicalTypeAnnotation i && !i.isSigned() && i.getBitWidth() == bits;
  }

  /** Whether a column holds nanosecond timestamps, which Spark reads only as longs. */
  static boolean nanos(LogicalTypeAnnotation a) {
    return a instanceof TimestampLogicalTypeAnnotation t && t.getUnit() == LogicalTypeAnnotation.TimeUnit.NANOS;
  }

  private static boolean decimal(LogicalTypeAnnotation a, DeviceType want) {
    // more digits at the same scale keep the unscaled value: Spark's reader widens so too
    return want.kind() == DeviceType.Kind.DECIMAL && a instanceof DecimalLogicalTypeAnnotation d
        && d.getPrecision() <= want.precision() && d.getScale() == want.scale();
  }

  private static String describe(PrimitiveType t) {
    String name = t.getPrimitiveTypeName().name().toLowerCase(Locale.ROOT);
    LogicalTypeAnnotation a = t.getLogicalTypeAnnotation();
    return a == null ? name : name + " (" + a + ")";
  }
}
