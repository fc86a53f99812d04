package io.sparkwarp.strings;

import io.sparkwarp.kernels.strings.StringMatcher;
import java.nio.charset.StandardCharsets;

/** Small helpers the pattern tests share. */
final class TestStrings {
  private TestStrings() {}

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Whether {@code m} matches the UTF-8 bytes of {@code s}. */
  static boolean matches(StringMatcher m, String s) {
    byte[] b = utf8(s);
    return m.matches(b, 0, b.length);
  }

  /** {@code s} quoted, with everything outside printable ASCII escaped, for assertion messages. */
  static String printable(String s) {
    StringBuilder b = new StringBuilder("\"");
    s.codePoints().forEach(c -> {
      if (c >= 0x20 && c < 0x7F) b.appendCodePoint(c);
      else b.append(String.format(c > 0xFFFF ? "\\x{%X}" : "\\u%04X", c));
    });
    return b.append('"').toString();
  }
}
