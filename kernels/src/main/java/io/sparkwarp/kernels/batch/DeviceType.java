package io.sparkwarp.kernels.batch;

import java.util.Objects;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;

/**
 * A column type on the device, with its Arrow layout: booleans bit-packed, fixed-width values little-endian,
 * strings and binaries as int32 offsets plus bytes. Decimals of precision up to 18 are held as 64-bit unscaled
 * values (Arrow's 16 bytes are narrowed on upload and widened on download); wider ones, up to 38, keep Arrow's
 * 16-byte little-endian two's complement layout ({@link Kind#DECIMAL128}: aggregation buffers and results).
 * Serializable: scans carry their columns' types to the executors.
 *
 * @param precision decimal precision, 0 otherwise
 * @param scale decimal scale, 0 otherwise
 * @param timeZone a timestamp's zone as Arrow names it, or null for timestamps without zone and other types
 */
public record DeviceType(Kind kind, int precision, int scale, String timeZone) implements java.io.Serializable {
  /** Largest decimal precision whose unscaled value fits 64 bits. */
  public static final int MAX_DECIMAL_PRECISION = 18;
  /** Largest decimal precision of all (Spark's and Arrow's): 128-bit unscaled values. */
  public static final int MAX_WIDE_DECIMAL_PRECISION = 38;

  /** The kinds of values, with bytes per value on the device (0: bit-packed, -1: variable width). */
  public enum Kind {
    BOOLEAN(0), BYTE(1), SHORT(2), INT(4), LONG(8), FLOAT(4), DOUBLE(8),
    /** days since 1970-01-01, int32 */
    DATE(4),
    /** microseconds since 1970-01-01 UTC, int64 */
    TIMESTAMP(8),
    /** unscaled value, int64: precision up to 18 */
    DECIMAL(8),
    STRING(-1), BINARY(-1),
    /**
     * unscaled value, int128 little-endian (Arrow's layout): precision 19 to 38. Last, because the kernels number
     * the other kinds by ordinal (expr_program.cuh KIND_*).
     */
    DECIMAL128(16);

    final int width;

    Kind(int width) {
      this.width = width;
    }
  }

  public static final DeviceType BOOLEAN = of(Kind.BOOLEAN);
  public static final DeviceType BYTE = of(Kind.BYTE);
  public static final DeviceType SHORT = of(Kind.SHORT);
  public static final DeviceType INT = of(Kind.INT);
  public static final DeviceType LONG = of(Kind.LONG);
  public static final DeviceType FLOAT = of(Kind.FLOAT);
  public static final DeviceType DOUBLE = of(Kind.DOUBLE);
  public static final DeviceType DATE = of(Kind.DATE);
  public static final DeviceType STRING = of(Kind.STRING);
  public static final DeviceType BINARY = of(Kind.BINARY);

  public DeviceType {
    Objects.requireNonNull(kind, "kind");
    if (kind == Kind.DECIMAL && (precision < 1 || precision > MAX_DECIMAL_PRECISION || scale < 0 || scale > precision)) {
      throw new UnsupportedTypeException("decimal(" + precision + "," + scale + ") does not fit 64 bits on the device "
          + "(precision must be 1 to " + MAX_DECIMAL_PRECISION + ")");
    }
    if (kind == Kind.DECIMAL128 && (precision <= MAX_DECIMAL_PRECISION || precision > MAX_WIDE_DECIMAL_PRECISION
        || scale < 0 || scale > precision)) {
      throw new UnsupportedTypeException("decimal(" + precision + "," + scale + ") is not a 128-bit device decimal "
          + "(precision must be " + (MAX_DECIMAL_PRECISION + 1) + " to " + MAX_WIDE_DECIMAL_PRECISION + ")");
    }
  }

  private static DeviceType of(Kind kind) {
    return new DeviceType(kind, 0, 0, null);
  }

  /** A decimal: 64-bit up to precision 18, 128-bit above. */
  public static DeviceType decimal(int precision, int scale) {
    return new DeviceType(precision > MAX_DECIMAL_PRECISION ? Kind.DECIMAL128 : Kind.DECIMAL, precision, scale, null);
  }

  public boolean isDecimal() {
    return kind == Kind.DECIMAL || kind == Kind.DECIMAL128;
  }

  /** Microsecond timestamp; {@code timeZone} null for one without zone (Spark's TIMESTAMP_NTZ). */
  public static DeviceType timestamp(String timeZone) {
    return new DeviceType(Kind.TIMESTAMP, 0, 0, timeZone);
  }

  /** Bytes per value on the device; only for fixed-width, byte-sized kinds. */
  public int width() {
    if (kind.width <= 0) throw new IllegalStateException(kind + " has no fixed byte width");
    return kind.width;
  }

  public boolean isVariableWidth() {
    return kind.width < 0;
  }

  public boolean isBitPacked() {
    return kind == Kind.BOOLEAN;
  }

  /** Bytes of the value buffer for {@code rows} fixed-width values (bit-packed: whole bytes of bits). */
  public long valueBytes(long rows) {
    return isBitPacked() ? (rows + 7) / 8 : rows * width();
  }

  /**
   * The device type of an Arrow type.
   *
   * @throws UnsupportedTypeException naming the type when the device has no layout for it
   */
  public static DeviceType fromArrow(ArrowType type) {
    return switch (type.getTypeID()) {
      case Bool -> BOOLEAN;
      case Int -> {
        ArrowType.Int i = (ArrowType.Int) type;
        if (!i.getIsSigned()) throw unsupported(type);
        yield switch (i.getBitWidth()) {
          case 8 -> BYTE;
          case 16 -> SHORT;
          case 32 -> INT;
          case 64 -> LONG;
          default -> throw unsupported(type);
        };
      }
      case FloatingPoint -> switch (((ArrowType.FloatingPoint) type).getPrecision()) {
        case SINGLE -> FLOAT;
        case DOUBLE -> DOUBLE;
        default -> throw unsupported(type);
      };
      case Date -> {
        if (((ArrowType.Date) type).getUnit() != DateUnit.DAY) throw unsupported(type);
        yield DATE;
      }
      case Timestamp -> {
        ArrowType.Timestamp t = (ArrowType.Timestamp) type;
        if (t.getUnit() != TimeUnit.MICROSECOND) throw unsupported(type);
        yield timestamp(t.getTimezone());
      }
      case Decimal -> {
        ArrowType.Decimal d = (ArrowType.Decimal) type;
        if (d.getBitWidth() != 128) throw unsupported(type);
        yield decimal(d.getPrecision(), d.getScale());
      }
      case Utf8 -> STRING;
      case Binary -> BINARY;
      default -> throw unsupported(type);
    };
  }

  private static UnsupportedTypeException unsupported(ArrowType type) {
    return new UnsupportedTypeException("arrow type " + type + " has no device layout");
  }

  /** The Arrow type this device type downloads into (the one Spark's ArrowColumnVector reads). */
  public ArrowType toArrow() {
    return switch (kind) {
      case BOOLEAN -> ArrowType.Bool.INSTANCE;
      case BYTE -> new ArrowType.Int(8, true);
      case SHORT -> new ArrowType.Int(16, true);
      case INT -> new ArrowType.Int(32, true);
      case LONG -> new ArrowType.Int(64, true);
      case FLOAT -> new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE);
      case DOUBLE -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
      case DATE -> new ArrowType.Date(DateUnit.DAY);
      case TIMESTAMP -> new ArrowType.Timestamp(TimeUnit.MICROSECOND, timeZone);
      case DECIMAL, DECIMAL128 -> new ArrowType.Decimal(precision, scale, 128);
      case STRING -> ArrowType.Utf8.INSTANCE;
      case BINARY -> ArrowType.Binary.INSTANCE;
    };
  }

  @Override
  public String toString() {
    return switch (kind) {
      case DECIMAL, DECIMAL128 -> "decimal(" + precision + "," + scale + ")";
      case TIMESTAMP -> timeZone == null ? "timestamp" : "timestamp[" + timeZone + "]";
      default -> kind.name().toLowerCase(java.util.Locale.ROOT);
    };
  }
}
