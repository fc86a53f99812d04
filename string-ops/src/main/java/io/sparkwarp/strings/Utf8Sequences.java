package io.sparkwarp.strings;

import java.util.ArrayList;
import java.util.List;

/**
 * The UTF-8 encodings of a set of code points as a short list of byte-range sequences: a code point is in the set
 * exactly when its encoding matches one sequence, byte i in {@code [lo[i], hi[i]]}. This is how a character class
 * becomes a piece of a byte automaton (the range splitting of RE2 and Rust's utf8-ranges). Input is valid UTF-8, so
 * when the set holds every character of one encoded length the sequence for that length is just "a lead byte of the
 * length and its continuation bytes", which keeps {@code _}, {@code .} and negated classes small.
 */
final class Utf8Sequences {
  /** One encoding shape, 1 to 4 bytes long. */
  record Sequence(int[] lo, int[] hi) {
    int length() {
      return lo.length;
    }
  }

  private static final int[] LENGTH_LIMITS = {0x7F, 0x7FF, 0xFFFF};
  /** First code point of each encoded length 1 to 4, and one past the last. */
  private static final int[] LENGTH_STARTS = {0, 0x80, 0x800, 0x10000, 0x110000};
  /** Lead bytes of each encoded length, invalid ones included (they never occur). */
  private static final int[][] LEAD_BYTES = {{0x00, 0x7F}, {0xC0, 0xDF}, {0xE0, 0xEF}, {0xF0, 0xF7}};

  private Utf8Sequences() {}

  /** The sequences that encode {@code set}; surrogates in it are ignored (valid UTF-8 never holds them). */
  static List<Sequence> of(CodePointSet set) {
    CodePointSet valid = set.minus(CodePointSet.SURROGATES);
    // Bridging the surrogate gap joins two ranges into one and adds nothing a valid string can hold.
    if (valid.contains(Character.MIN_SURROGATE - 1) && valid.contains(Character.MAX_SURROGATE + 1)) {
      valid = valid.union(CodePointSet.SURROGATES);
    }
    List<Sequence> out = new ArrayList<>();
    for (int length = 1; length <= 4; length++) {
      CodePointSet all = CodePointSet.range(LENGTH_STARTS[length - 1], LENGTH_STARTS[length] - 1);
      if (valid.containsAll(all)) {
        out.add(anyOfLength(length));
        valid = valid.minus(all);
      }
    }
    for (int i = 0; i < valid.rangeCount(); i++) split(valid.lo(i), valid.hi(i), out);
    return out;
  }

  private static Sequence anyOfLength(int length) {
    int[] lo = new int[length];
    int[] hi = new int[length];
    lo[0] = LEAD_BYTES[length - 1][0];
    hi[0] = LEAD_BYTES[length - 1][1];
    for (int i = 1; i < length; i++) {
      lo[i] = 0x80;
      hi[i] = 0xBF;
    }
    return new Sequence(lo, hi);
  }

  /** The UTF-8 bytes of one code point, as unsigned values. */
  static int[] encode(int cp) {
    if (cp < 0x80) return new int[] {cp};
    if (cp < 0x800) return new int[] {0xC0 | cp >> 6, 0x80 | cp & 0x3F};
    if (cp < 0x10000) return new int[] {0xE0 | cp >> 12, 0x80 | cp >> 6 & 0x3F, 0x80 | cp & 0x3F};
    return new int[] {0xF0 | cp >> 18, 0x80 | cp >> 12 & 0x3F, 0x80 | cp >> 6 & 0x3F, 0x80 | cp & 0x3F};
  }

  private static void split(int lo, int hi, List<Sequence> out) {
    for (int limit : LENGTH_LIMITS) {
      if (lo <= limit && hi > limit) {
        split(lo, limit, out);
        split(limit + 1, hi, out);
        return;
      }
    }
    int length = encode(lo).length;
    // Split until, for every continuation position, the range covers either one value or all 64 below a prefix,
    // so the byte ranges of lo and hi describe exactly [lo, hi].
    for (int i = 1; i < length; i++) {
      int mask = (1 << (6 * i)) - 1;
      if ((lo & ~mask) != (hi & ~mask)) {
        if ((lo & mask) != 0) {
          split(lo, lo | mask, out);
          split((lo | mask) + 1, hi, out);
          return;
        }
        if ((hi & mask) != mask) {
          split(lo, (hi & ~mask) - 1, out);
          split(hi & ~mask, hi, out);
          return;
        }
      }
    }
    out.add(new Sequence(encode(lo), encode(hi)));
  }
}
