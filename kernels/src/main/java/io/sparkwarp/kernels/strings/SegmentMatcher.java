package io.sparkwarp.kernels.strings;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A string matches when it starts with {@link #prefix()}, ends with {@link #suffix()} (the two not overlapping), and
 * between them holds every one of {@link #segments()} in order without overlap; with {@link #exact()} it must equal
 * the prefix (no segments, no suffix). That is LIKE without {@code _} ({@code 'p%s1%s2%q'}), StartsWith, EndsWith,
 * Contains and equality. Segments are searched leftmost-first with KMP ({@link #failure}), which is exact for
 * ordered non-overlapping occurrence.
 */
public final class SegmentMatcher implements StringMatcher {
  private static final long serialVersionUID = 1L;

  private final byte[] prefix;
  private final byte[] suffix;
  private final byte[][] segments;
  private final boolean exact;

  private SegmentMatcher(byte[] prefix, byte[] suffix, List<byte[]> segments, boolean exact) {
    this.prefix = prefix.clone();
    this.suffix = suffix.clone();
    List<byte[]> kept = new ArrayList<>();
    for (byte[] s : segments) if (s.length > 0) kept.add(s.clone());  // an empty segment always matches
    this.segments = kept.toArray(new byte[0][]);
    this.exact = exact;
  }

  /** Strings that start with {@code prefix}, end with {@code suffix} and hold the segments in order between. */
  public static SegmentMatcher of(byte[] prefix, List<byte[]> segments, byte[] suffix) {
    return new SegmentMatcher(prefix, suffix, segments, false);
  }

  /** Strings equal to {@code value}. */
  public static SegmentMatcher equalTo(byte[] value) {
    return new SegmentMatcher(value, new byte[0], List.of(), true);
  }

  public static SegmentMatcher startsWith(byte[] prefix) {
    return of(prefix, List.of(), new byte[0]);
  }

  public static SegmentMatcher endsWith(byte[] suffix) {
    return of(new byte[0], List.of(), suffix);
  }

  public static SegmentMatcher contains(byte[] segment) {
    return of(new byte[0], List.of(segment), new byte[0]);
  }

  public byte[] prefix() {
    return prefix.clone();
  }

  public byte[] suffix() {
    return suffix.clone();
  }

  /** The non-empty middle segments, in order. */
  public List<byte[]> segments() {
    List<byte[]> out = new ArrayList<>(segments.length);
    for (byte[] s : segments) out.add(s.clone());
    return out;
  }

  public int segmentCount() {
    return segments.length;
  }

  public boolean exact() {
    return exact;
  }

  /**
   * Whether the matcher is only segments, in order, anywhere ({@code LIKE '%s1%...%sk%'}, k >= 1): no prefix, suffix
   * or equality. Such a matcher needs every byte of a string it rejects, and the CUDA backend answers it on the plain
   * layout by streaming the column's bytes (a contains scan) rather than by a lane per string.
   */
  public boolean unanchored() {
    return !exact && prefix.length == 0 && suffix.length == 0 && segments.length > 0;
  }

  /** The shortest string that can match. */
  public int minLength() {
    int n = prefix.length + suffix.length;
    for (byte[] s : segments) n += s.length;
    return n;
  }

  /**
   * The KMP failure table of segment {@code i}: {@code m + 1} entries for a segment of length m, {@code f[0] = -1}
   * and {@code f[j]} (j >= 1) the length of the longest proper border of the segment's first j bytes.
   */
  public int[] failure(int i) {
    byte[] p = segments[i];
    int[] f = new int[p.length + 1];
    f[0] = -1;
    int k = -1;
    for (int j = 0; j < p.length; j++) {
      while (k >= 0 && p[k] != p[j]) k = f[k];
      k++;
      f[j + 1] = k;
    }
    return f;
  }

  @Override
  public boolean matches(byte[] bytes, int offset, int length) {
    if (exact) return length == prefix.length && Arrays.equals(bytes, offset, offset + length, prefix, 0, length);
    if (length < prefix.length + suffix.length) return false;
    if (!Arrays.equals(bytes, offset, offset + prefix.length, prefix, 0, prefix.length)) return false;
    int end = offset + length;
    if (!Arrays.equals(bytes, end - suffix.length, end, suffix, 0, suffix.length)) return false;
    int from = offset + prefix.length;
    int to = end - suffix.length;
    for (int i = 0; i < segments.length; i++) {
      from = find(i, bytes, from, to);
      if (from < 0) return false;
    }
    return true;
  }

  /** KMP search of segment i in {@code bytes[from, to)}: the index just past its first occurrence, or -1. */
  private int find(int i, byte[] bytes, int from, int to) {
    byte[] p = segments[i];
    int[] f = failure(i);
    int j = 0;
    for (int k = from; k < to; k++) {
      while (j >= 0 && p[j] != bytes[k]) j = f[j];
      j++;
      if (j == p.length) return k + 1;
    }
    return -1;
  }

  @Override
  public String describe() {
    if (exact) return "equals '" + text(prefix) + "'";
    StringBuilder b = new StringBuilder("segments[");
    if (prefix.length > 0) b.append("prefix '").append(text(prefix)).append("' ");
    for (byte[] s : segments) b.append("'").append(text(s)).append("' ");
    if (suffix.length > 0) b.append("suffix '").append(text(suffix)).append("' ");
    return b.toString().strip() + "]";
  }

  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof SegmentMatcher m && exact == m.exact && Arrays.equals(prefix, m.prefix)
        && Arrays.equals(suffix, m.suffix) && Arrays.deepEquals(segments, m.segments);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(prefix) * 31 + Arrays.deepHashCode(segments) * 17 + Arrays.hashCode(suffix)
        + (exact ? 1 : 0);
  }

  @Override
  public String toString() {
    return describe();
  }
}
