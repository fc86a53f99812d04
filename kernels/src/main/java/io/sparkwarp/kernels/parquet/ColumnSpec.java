package io.sparkwarp.kernels.parquet;

import io.sparkwarp.kernels.batch.DeviceType;
import java.util.Optional;

/**
 * How one Parquet column decodes: its physical type (and fixed length) and the device type it becomes.
 *
 * @param typeLength bytes of a FIXED_LEN_BYTE_ARRAY value, 0 otherwise
 */
public record ColumnSpec(PhysicalType physical, int typeLength, DeviceType output) {
  public ColumnSpec {
    whyNot(physical, typeLength, output).ifPresent(why -> {
      throw new IllegalArgumentException(why);
    });
  }

  /** Why the device cannot decode {@code physical} into {@code output}, or empty when it can. */
  public static Optional<String> whyNot(PhysicalType physical, int typeLength, DeviceType output) {
    boolean ok = switch (physical) {
      case BOOLEAN -> output.kind() == DeviceType.Kind.BOOLEAN;
      case INT32 -> switch (output.kind()) {
        case BYTE, SHORT, INT, LONG, DATE, DECIMAL -> true;
        default -> false;
      };
      case INT64 -> switch (output.kind()) {
        case LONG, TIMESTAMP, DECIMAL -> true;
        default -> false;
      };
      case FLOAT -> output.kind() == DeviceType.Kind.FLOAT;
      case DOUBLE -> output.kind() == DeviceType.Kind.DOUBLE;
      case FIXED_LEN_BYTE_ARRAY -> output.kind() == DeviceType.Kind.DECIMAL && typeLength >= 1 && typeLength <= 8;
      case BYTE_ARRAY -> output.isVariableWidth();
      case INT96 -> output.kind() == DeviceType.Kind.TIMESTAMP && output.timeZone() != null;
      case UINT32 -> output.kind() == DeviceType.Kind.LONG;
      case INT64_MILLIS -> output.kind() == DeviceType.Kind.TIMESTAMP;
      case UINT64 -> output.kind() == DeviceType.Kind.DECIMAL128 && output.scale() == 0;
    };
    return ok ? Optional.empty()
        : Optional.of("parquet " + physical.name().toLowerCase(java.util.Locale.ROOT)
            + (physical == PhysicalType.FIXED_LEN_BYTE_ARRAY ? "(" + typeLength + ")" : "") + " as " + output
            + " is not decoded on the device");
  }

  /** Bytes of one PLAIN value of the physical type (0: bit-packed or variable). */
  public int width() {
    return physical.width(typeLength);
  }
}
