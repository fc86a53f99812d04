package io.sparkwarp.kernels.strings;

/**
 * Spark's {@code substring(str, pos, len)} of a string ({@code UTF8String.substringSQL}) as a byte range of its
 * input: a substring of UTF-8 is a contiguous run of its bytes. The host backend's definition, and the one
 * {@code utf8.cuh} implements on the device.
 *
 * <p>Characters are counted as Spark counts them, not by validating UTF-8: from byte 0, each character is as long
 * as its first byte says ({@link #charBytes}), whatever the bytes after it are. pos is 1-based, 0 acts as 1 and a
 * negative pos counts back from the end; the end is pos + len characters, saturated to the int range, and a range
 * that ends at or before its start is empty. Where the last character's first byte claims more bytes than the
 * string has, Spark copies the bytes past the string's end (whatever follows it in memory); the range ends at the
 * string's end instead.
 */
public final class Utf8Substring {
  private Utf8Substring() {}

  /**
   * Bytes of the character that starts with {@code first}, as Spark's {@code UTF8String.numBytesForFirstByte}: 2 for
   * C2..DF, 3 for E0..EF, 4 for F0..F4, and 1 for every other byte (ASCII, and the bytes that start no character in
   * UTF-8: continuations 80..BF, C0, C1, F5..FF).
   */
  public static int charBytes(byte first) {
    int b = first & 0xff;
    return b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 1;
  }

  /**
   * The substring of the {@code n} bytes at {@code s[from]} as {@code begin << 32 | end}, offsets from {@code from}
   * with {@code 0 <= begin <= end <= n} (an empty substring may have any begin).
   */
  public static long range(byte[] s, int from, int n, int pos, int len) {
    // character indexes, 0-based: [start, until), where a negative start counts back from the end
    int chars = pos < 0 ? charCount(s, from, n) : 0;
    long start = pos > 0 ? pos - 1L : pos < 0 ? (long) chars + pos : 0;
    long until = Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, start + len));
    if (until <= start) return 0;
    int i = 0;
    for (long c = 0; i < n && c < start; c++) i += charBytes(s[from + i]);
    int begin = Math.min(i, n);
    for (long c = Math.max(start, 0); i < n && c < until; c++) i += charBytes(s[from + i]);
    return (long) begin << 32 | Math.min(i, n);
  }

  /** Characters of the {@code n} bytes at {@code s[from]}, as Spark's {@code UTF8String.numChars}. */
  private static int charCount(byte[] s, int from, int n) {
    int chars = 0;
    for (int i = 0; i < n; i += charBytes(s[from + i])) chars++;
    return chars;
  }
}
