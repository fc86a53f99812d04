package io.sparkwarp.strings;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random java.util.regex patterns inside the subset {@link RegexCompiler} supports, written as text: literals of 1
 * to 4 UTF-8 bytes (plain and in every escape form), line terminators, {@code .}, classes with ranges, negation,
 * nesting and predefined classes, anchors, alternation, every kind of group, greedy and lazy quantifiers, and the
 * {@code i} and {@code s} flags. Records the characters it used, so strings can be drawn to hit them.
 */
final class RandomRegex {
  /** Characters patterns and strings are made of: ASCII letters and digits, specials, 2, 3 and 4 byte UTF-8. */
  static final int[] ALPHABET = {
    'a', 'b', 'c', 'A', 'B', 'k', 'K', 's', 'S', 'z', '0', '7', '_', ' ', '-', '.', '\t', '\n', '\r', 0x0B, 0x85,
    0x2028, 0x2029, 0xE9, 0xC9, 0xFF, 0x17F, 0x212A, 0x20AC, 0x4E2D, 0x1F600, 0x1F601, 0x10000, 0x10FFFF
  };

  /** Few characters, line terminators among them: anchors and repeats meet often. */
  static final int[] NARROW_ALPHABET = {'a', 'b', 'A', '\n', '\r', 0x2028, 0xE9, 0x1F600};

  private final Random random;
  private final int[] alphabet;
  private final List<Integer> used = new ArrayList<>();
  /** Named groups so far in the pattern: names must differ. */
  private int groups;

  RandomRegex(Random random, int[] alphabet) {
    this.random = random;
    this.alphabet = alphabet;
  }

  int[] alphabet() {
    return alphabet;
  }

  /** A new pattern; {@link #usedCharacters()} then lists the characters it mentions. */
  String next() {
    used.clear();
    groups = 0;
    StringBuilder b = new StringBuilder();
    if (random.nextInt(8) == 0) b.append(random.nextBoolean() ? "(?i)" : "(?s)");
    alternation(b, 2);
    return b.toString();
  }

  List<Integer> usedCharacters() {
    return used;
  }

  private void alternation(StringBuilder b, int depth) {
    int n = random.nextInt(6) == 0 ? 2 + random.nextInt(2) : 1;
    for (int i = 0; i < n; i++) {
      if (i > 0) b.append('|');
      sequence(b, depth);
    }
  }

  private void sequence(StringBuilder b, int depth) {
    int n = random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(3);
    for (int i = 0; i < n; i++) {
      int before = b.length();
      boolean quantifiable = atom(b, depth);
      if (quantifiable && random.nextInt(3) == 0) quantifier(b);
      else if (!quantifiable && before == b.length()) i--;
    }
  }

  /** Appends one atom; false when it takes no quantifier (a flag group). */
  private boolean atom(StringBuilder b, int depth) {
    int kind = random.nextInt(depth > 0 ? 16 : 11);
    switch (kind) {
      case 0, 1, 2, 3 -> literal(b, pick());
      case 4 -> b.append('.');
      case 5, 6 -> charClass(b, 2);
      case 7 -> b.append('\\').append("dDwWsShHvV".charAt(random.nextInt(10)));
      case 8 -> b.append(new String[] {"^", "$", "\\A", "\\Z", "\\z"}[random.nextInt(5)]);
      case 9 -> escapedLiteral(b, pick());
      case 10 -> {
        b.append(new String[] {"(?i)", "(?-i)", "(?s)", "(?is)", "(?i-s)"}[random.nextInt(5)]);
        return false;
      }
      default -> {
        b.append(new String[] {"(", "(?:", "(?<g" + groups++ + ">", "(?i:", "(?-i:", "(?s:"}
            [random.nextInt(6)]);
        alternation(b, depth - 1);
        b.append(')');
      }
    }
    return true;
  }

  private void quantifier(StringBuilder b) {
    switch (random.nextInt(7)) {
      case 0 -> b.append('*');
      case 1 -> b.append('+');
      case 2 -> b.append('?');
      case 3 -> b.append('{').append(random.nextInt(3)).append('}');
      case 4 -> b.append('{').append(random.nextInt(3)).append(",}");
      default -> {
        int min = random.nextInt(3);
        b.append('{').append(min).append(',').append(min + random.nextInt(3)).append('}');
      }
    }
    if (random.nextInt(4) == 0) b.append('?');
  }

  private void charClass(StringBuilder b, int depth) {
    b.append('[');
    if (random.nextInt(3) == 0) b.append('^');
    int n = 1 + random.nextInt(3);
    for (int i = 0; i < n; i++) {
      switch (random.nextInt(depth > 0 ? 7 : 6)) {
        case 0, 1 -> classLiteral(b, pick());
        case 2, 3 -> {
          int lo = pick();
          int hi = pick();
          classLiteral(b, Math.min(lo, hi));
          b.append('-');
          classLiteral(b, Math.max(lo, hi));
        }
        case 4 -> b.append('\\').append("dDwWsShHvV".charAt(random.nextInt(10)));
        case 5 -> escapedLiteral(b, pick());
        default -> charClass(b, depth - 1);
      }
    }
    b.append(']');
  }

  private int pick() {
    int c = alphabet[random.nextInt(alphabet.length)];
    used.add(c);
    return c;
  }

  private void literal(StringBuilder b, int c) {
    if ("\\^$.|?*+()[]{}".indexOf(c) >= 0) b.append('\\');
    b.appendCodePoint(c);
  }

  private void classLiteral(StringBuilder b, int c) {
    if ("\\^-[]&".indexOf(c) >= 0) b.append('\\');
    b.appendCodePoint(c);
  }

  /** {@code c} in one of Java's escape forms. */
  private void escapedLiteral(StringBuilder b, int c) {
    switch (c < 0x80 ? random.nextInt(5) : c < 0x100 ? random.nextInt(4) : 1 + random.nextInt(2)) {
      case 0 -> b.append(String.format("\\0%03o", c));
      case 1 -> b.append(String.format("\\x{%x}", c));
      case 2 -> {
        for (char unit : Character.toChars(c)) b.append(String.format("\\u%04X", (int) unit));
      }
      case 3 -> b.append(String.format("\\x%02x", c));
      default -> b.append(switch (c) {
        case '\t' -> "\\t";
        case '\n' -> "\\n";
        case '\r' -> "\\r";
        default -> c >= 'a' && c <= 'z' ? "\\c" + (char) (c ^ 64) : "\\Q" + (char) c + "\\E";
      });
    }
  }
}
