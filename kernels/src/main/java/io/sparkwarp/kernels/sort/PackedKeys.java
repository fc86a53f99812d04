package io.sparkwarp.kernels.sort;

import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import java.util.ArrayList;
import java.util.List;

/**
 * Sort keys packed into one unsigned 64-bit word a row whose unsigned order is Spark's order of the rows by those
 * keys (sort_keys.cuh's PackedKeys), so that a radix pass reads its digit from the word it moves instead of gathering
 * the key through the current order ({@link SortPrimitives#pairPass}). Each key whose rows can differ is a field,
 * the first key's the most significant: the bits of its sortable key (complemented when descending) from the lowest
 * to the highest that varies among its valid rows ({@link KeyStatistics}; every valid row has the same bits outside
 * them, so they cannot order two rows), 0 for a null; and, when it has both nulls and valid rows, one bit above them
 * that places the nulls (0 for the rows that sort first by nullness). A null flag that no longer fits (one key of 64
 * varying bits with nulls) becomes a last stable pass by nullness, which only the first key's can be.
 *
 * @param fields the keys' fields, the last key's first (least significant)
 * @param varying the bits of the word that differ between rows: the passes' digits cover exactly these
 * @param nullPass the key whose nulls a last pass places ({@link SortPrimitives#nullDigits}), or null
 */
public record PackedKeys(List<Field> fields, long varying, SortKey nullPass) {
  /** The most fields of a word (sort_keys.cuh's MAX_PACKED_FIELDS). */
  public static final int MAX_FIELDS = 8;
  /** Bits of a pass's digit: 256 buckets, the most the block path of the grouping ranks. */
  public static final int DIGIT_BITS = 8;

  /**
   * One key's field: bits [low, low + width) of a valid row's sortable key (complemented when {@code descending}) at
   * bit {@code shift} of the word, and with {@code nullFlag} the bit above them, 0 for the rows that sort first by
   * nullness ({@code nullsFirst}: the nulls); {@code anyNull}: whether a row is null, so that packing a key without
   * nulls reads no validity bits.
   */
  public record Field(DeviceColumn column, boolean descending, boolean nullsFirst, int low, int width,
      boolean nullFlag, int shift, boolean anyNull) {}

  /** One pass: the pairs grouped stably by bits [shift, shift + bits) of their word. */
  public record Pass(int shift, int bits) {}

  /**
   * The packed words of {@code keys}, or null where they do not fit one: a string, binary or 128-bit decimal key,
   * more than {@link #MAX_FIELDS} keys that vary, or more than 64 bits; also where no row can differ from another
   * (the digit passes then write the identity order).
   */
  static PackedKeys plan(DeviceBatch batch, List<SortKey> keys, List<KeyStatistics> statistics) {
    int rows = batch.rowCount();
    List<Field> fields = new ArrayList<>();
    long varying = 0;
    int used = 0;
    SortKey nullPass = null;
    for (int k = keys.size() - 1; k >= 0; k--) {
      SortKey key = keys.get(k);
      DeviceColumn column = batch.column(key.column());
      DeviceType.Kind kind = column.type().kind();
      if (column.type().isVariableWidth() || kind == DeviceType.Kind.DECIMAL128) return null;
      KeyStatistics s = statistics.get(k);
      long values = s.onesLow() & s.zerosLow();  // 0 when every row is null
      int low = values == 0 ? 0 : Long.numberOfTrailingZeros(values);
      int width = values == 0 ? 0 : 64 - low - Long.numberOfLeadingZeros(values);
      boolean nullFlag = s.nulls() > 0 && s.nulls() < rows;
      if (nullFlag && k == 0 && used + width == 64) {
        nullFlag = false;
        nullPass = key;
      }
      int bits = width + (nullFlag ? 1 : 0);
      if (bits == 0) continue;  // every row ties on this key
      if (used + bits > 64 || fields.size() == MAX_FIELDS) return null;
      fields.add(new Field(column, !key.ascending(), key.nullsFirst(), low, width, nullFlag, used, s.nulls() > 0));
      varying |= (values >>> low) << used;
      if (nullFlag) varying |= 1L << (used + width);
      used += bits;
    }
    return varying == 0 ? null : new PackedKeys(List.copyOf(fields), varying, nullPass);
  }

  /**
   * Whether {@code keys} fit one word with every bit of their sortable values: fixed-width keys (not 128-bit
   * decimals), at most {@link #MAX_FIELDS}, whose {@link #fullBits} add up to 64 at most (null flags aside).
   */
  static boolean fitAtFullWidth(DeviceBatch batch, List<SortKey> keys) {
    if (keys.size() > MAX_FIELDS) return false;
    int bits = 0;
    for (SortKey key : keys) {
      DeviceType type = batch.column(key.column()).type();
      if (type.isVariableWidth() || type.kind() == DeviceType.Kind.DECIMAL128) return false;
      bits += fullBits(type);
    }
    return bits <= 64;
  }

  /** The bits of a fixed-width type's sortable key (sort_keys.cuh's sortable_key): 1 for a boolean. */
  static int fullBits(DeviceType type) {
    return type.isBitPacked() ? 1 : 8 * type.width();
  }

  /**
   * The passes, least significant first: each from the lowest varying bit not covered yet to the highest varying bit
   * of the {@link #DIGIT_BITS} from there, so bits that no row changes cost no pass, and a digit of fewer bits fewer
   * buckets (as few passes as any cover of the varying bits by 8-bit digits).
   */
  List<Pass> passes() {
    List<Pass> passes = new ArrayList<>();
    for (long rest = varying; rest != 0; ) {
      int shift = Long.numberOfTrailingZeros(rest);
      long digit = rest & (((1L << DIGIT_BITS) - 1) << shift);
      passes.add(new Pass(shift, 64 - Long.numberOfLeadingZeros(digit) - shift));
      rest &= ~digit;
    }
    return passes;
  }
}
