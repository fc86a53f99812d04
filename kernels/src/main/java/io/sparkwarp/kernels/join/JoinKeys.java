package io.sparkwarp.kernels.join;

import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.batch.UnsupportedTypeException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * The key columns of one side of an equi-join, with Spark's null-safe flag ({@code <=>}) per column: null keys never
 * match, except in a null-safe column, where null matches null. Keys are int32 (int, date), int64 (long, timestamp,
 * decimal unscaled) or bytes (string, binary), up to {@link #MAX_COLUMNS} columns. The columns are not owned.
 */
public record JoinKeys(List<DeviceColumn> columns, List<Boolean> nullSafe) {
  /** Most key columns one join takes (join_keys.cuh MAX_KEY_COLUMNS). */
  public static final int MAX_COLUMNS = 8;
  /** Key kinds as the kernels number them (join_keys.cuh KeyKind). */
  static final int INT32 = 0;
  static final int INT64 = 1;
  static final int BYTES = 2;
  /** Bytes of the kernels' KeyColumns struct: 8 columns of (3 pointers, kind, null-safe), then the count. */
  static final int ABI_BYTES = MAX_COLUMNS * 32 + 8;

  public JoinKeys {
    columns = List.copyOf(columns);
    nullSafe = List.copyOf(nullSafe);
    if (columns.isEmpty() || columns.size() > MAX_COLUMNS) {
      throw new IllegalArgumentException("a join takes 1 to " + MAX_COLUMNS + " key columns, not " + columns.size());
    }
    if (nullSafe.size() != columns.size()) {
      throw new IllegalArgumentException(columns.size() + " key columns with " + nullSafe.size() + " null-safe flags");
    }
    for (DeviceColumn c : columns) {
      kind(c.type());
      if (c.rowCount() != columns.get(0).rowCount()) {
        throw new IllegalArgumentException("key columns of " + columns.get(0).rowCount() + " and " + c.rowCount()
            + " rows");
      }
    }
  }

  /** Keys compared with plain equality (no column null-safe). */
  public static JoinKeys of(DeviceColumn... columns) {
    return new JoinKeys(List.of(columns), List.of(columns).stream().map(c -> false).toList());
  }

  public int rowCount() {
    return columns.get(0).rowCount();
  }

  public DeviceColumn column(int i) {
    return columns.get(i);
  }

  public boolean nullSafe(int i) {
    return nullSafe.get(i);
  }

  /** The kernels' kind of a key column of this type. */
  static int kind(DeviceType type) {
    return switch (type.kind()) {
      case INT, DATE -> INT32;
      case LONG, TIMESTAMP, DECIMAL -> INT64;
      case STRING, BINARY -> BYTES;
      default -> throw new UnsupportedTypeException("join keys of type " + type + " are not supported on the device");
    };
  }

  /**
   * Throws unless {@code other}, the keys of the other side, can be compared with these: as many columns, of the
   * same kinds and decimal scales, with the same null-safe flags.
   */
  public void checkComparable(JoinKeys other) {
    if (other.columns.size() != columns.size()) {
      throw new IllegalArgumentException(columns.size() + " key columns joined with " + other.columns.size());
    }
    for (int i = 0; i < columns.size(); i++) {
      DeviceType a = column(i).type();
      DeviceType b = other.column(i).type();
      if (kind(a) != kind(b) || a.scale() != b.scale() || nullSafe(i) != other.nullSafe(i)) {
        throw new IllegalArgumentException("key " + i + " compares " + a + (nullSafe(i) ? " <=> " : " = ") + b
            + (nullSafe(i) != other.nullSafe(i) ? " with differing null-safe flags" : ""));
      }
    }
  }

  /** The kernels' KeyColumns struct, passed by value (join_keys.cuh). */
  public byte[] abi() {
    ByteBuffer b = ByteBuffer.allocate(ABI_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    for (int i = 0; i < columns.size(); i++) {
      DeviceColumn c = column(i);
      b.putLong(32 * i, c.validity().address());
      b.putLong(32 * i + 8, c.type().isVariableWidth() ? c.offsets().address() : 0);
      b.putLong(32 * i + 16, c.data().address());
      b.putInt(32 * i + 24, kind(c.type()));
      b.putInt(32 * i + 28, nullSafe(i) ? 1 : 0);
    }
    b.putInt(MAX_COLUMNS * 32, columns.size());
    return b.array();
  }
}
