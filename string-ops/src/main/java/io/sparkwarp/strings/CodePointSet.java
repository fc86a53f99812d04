package io.sparkwarp.strings;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * An immutable set of Unicode code points (0 to 0x10FFFF) as sorted, disjoint, non-adjacent closed ranges: what one
 * character of a pattern may be (a literal, {@code _}, {@code .}, a character class).
 */
final class CodePointSet {
  static final int MAX_CODE_POINT = Character.MAX_CODE_POINT;

  static final CodePointSet EMPTY = new CodePointSet(new int[0]);
  static final CodePointSet ALL = range(0, MAX_CODE_POINT);
  /** The surrogate block: never a character of valid UTF-8, so a set may include or exclude it freely. */
  static final CodePointSet SURROGATES = range(Character.MIN_SURROGATE, Character.MAX_SURROGATE);

  /** lo0, hi0, lo1, hi1, ... with hi_i + 1 < lo_{i+1}. */
  private final int[] bounds;

  private CodePointSet(int[] bounds) {
    this.bounds = bounds;
  }

  static CodePointSet of(int codePoint) {
    return range(codePoint, codePoint);
  }

  static CodePointSet range(int lo, int hi) {
    if (lo < 0 || hi > MAX_CODE_POINT || lo > hi) throw new IllegalArgumentException("bad range " + lo + ".." + hi);
    return new CodePointSet(new int[] {lo, hi});
  }

  /** The set of the given code points (any order, duplicates allowed). */
  static CodePointSet ofAll(int... codePoints) {
    CodePointSet s = EMPTY;
    for (int c : codePoints) s = s.union(of(c));
    return s;
  }

  int rangeCount() {
    return bounds.length / 2;
  }

  int lo(int range) {
    return bounds[2 * range];
  }

  int hi(int range) {
    return bounds[2 * range + 1];
  }

  boolean isEmpty() {
    return bounds.length == 0;
  }

  boolean contains(int codePoint) {
    int i = Arrays.binarySearch(bounds, codePoint);
    return i >= 0 || (-i - 1) % 2 == 1;
  }

  /** Whether every code point of {@code other} is in this set. */
  boolean containsAll(CodePointSet other) {
    return other.minus(this).isEmpty();
  }

  CodePointSet union(CodePointSet other) {
    List<int[]> ranges = new ArrayList<>(rangeCount() + other.rangeCount());
    for (int i = 0; i < rangeCount(); i++) ranges.add(new int[] {lo(i), hi(i)});
    for (int i = 0; i < other.rangeCount(); i++) ranges.add(new int[] {other.lo(i), other.hi(i)});
    ranges.sort((a, b) -> Integer.compare(a[0], b[0]));
    int[] out = new int[ranges.size() * 2];
    int n = 0;
    for (int[] r : ranges) {
      if (n > 0 && r[0] <= out[n - 1] + 1) {
        out[n - 1] = Math.max(out[n - 1], r[1]);
      } else {
        out[n++] = r[0];
        out[n++] = r[1];
      }
    }
    return new CodePointSet(Arrays.copyOf(out, n));
  }

  CodePointSet complement() {
    int[] out = new int[bounds.length + 2];
    int n = 0;
    int next = 0;
    for (int i = 0; i < rangeCount(); i++) {
      if (lo(i) > next) {
        out[n++] = next;
        out[n++] = lo(i) - 1;
      }
      next = hi(i) + 1;
    }
    if (next <= MAX_CODE_POINT) {
      out[n++] = next;
      out[n++] = MAX_CODE_POINT;
    }
    return new CodePointSet(Arrays.copyOf(out, n));
  }

  CodePointSet minus(CodePointSet other) {
    return complement().union(other).complement();
  }

  /**
   * This set closed under ASCII case: each ASCII letter brings its other case along. That is java.util.regex's
   * CASE_INSENSITIVE without UNICODE_CASE, for a literal or a range (a range matches a character when the character
   * or, if ASCII, its upper or lower case falls in it).
   */
  CodePointSet withAsciiCaseVariants() {
    CodePointSet out = this;
    for (int c = 'A'; c <= 'Z'; c++) {
      int lower = c + ('a' - 'A');
      if (contains(c) || contains(lower)) out = out.union(of(c)).union(of(lower));
    }
    return out;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CodePointSet s && Arrays.equals(bounds, s.bounds);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(bounds);
  }

  @Override
  public String toString() {
    StringBuilder b = new StringBuilder("[");
    for (int i = 0; i < rangeCount(); i++) {
      if (i > 0) b.append(' ');
      b.append(Integer.toHexString(lo(i)));
      if (hi(i) != lo(i)) b.append('-').append(Integer.toHexString(hi(i)));
    }
    return b.append(']').toString();
  }
}
