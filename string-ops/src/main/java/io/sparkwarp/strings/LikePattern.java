package io.sparkwarp.strings;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A SQL LIKE pattern read exactly as Spark 4.1 reads it ({@code StringUtils.escapeLikeRegex}, compiled with DOTALL
 * and matched against the whole string): code point by code point, {@code _} is one character (1 to 4 UTF-8 bytes),
 * {@code %} any sequence, the escape character makes a following {@code _}, {@code %} or escape character literal,
 * and any other use of it is an error carrying Spark's message. Everything else is literal.
 */
final class LikePattern {
  /** Element for {@code _}. */
  private static final int ANY_ONE = -1;
  /** Element for {@code %}. */
  private static final int ANY_SEQUENCE = -2;

  private final String text;
  private final char escape;
  /** Code points of literal characters, or ANY_ONE, or ANY_SEQUENCE. */
  private final int[] elements;

  private LikePattern(String text, char escape, int[] elements) {
    this.text = text;
    this.escape = escape;
    this.elements = elements;
  }

  /**
   * @throws InvalidPatternException where Spark throws, with Spark's message
   * @throws UnsupportedPatternException for a lone surrogate, which no UTF-8 string of Spark's can hold
   */
  static LikePattern parse(String pattern, char escape) {
    int[] cps = pattern.codePoints().toArray();
    int[] elements = new int[cps.length];
    int n = 0;
    for (int i = 0; i < cps.length; i++) {
      int c = cps[i];
      if (c >= Character.MIN_SURROGATE && c <= Character.MAX_SURROGATE) {
        throw new UnsupportedPatternException("like pattern holds a lone surrogate");
      }
      if (c == escape && i + 1 < cps.length) {
        int next = cps[++i];
        if (next != '_' && next != '%' && next != escape) {
          throw new InvalidPatternException(escapeInTheMiddle(pattern, next));
        }
        elements[n++] = next;
      } else if (c == escape) {
        throw new InvalidPatternException(escapeAtTheEnd(pattern));
      } else {
        elements[n++] = c == '_' ? ANY_ONE : c == '%' ? ANY_SEQUENCE : c;
      }
    }
    return new LikePattern(pattern, escape, Arrays.copyOf(elements, n));
  }

  boolean hasAnyOne() {
    return Arrays.stream(elements).anyMatch(e -> e == ANY_ONE);
  }

  /** The literal runs around the {@code %}s, as UTF-8 (one run when there is none); for patterns without {@code _}. */
  List<byte[]> runs() {
    List<byte[]> runs = new ArrayList<>();
    StringBuilder run = new StringBuilder();
    for (int e : elements) {
      if (e == ANY_ONE) throw new IllegalStateException("a pattern with _ has no literal runs");
      if (e == ANY_SEQUENCE) {
        runs.add(utf8(run));
        run.setLength(0);
      } else {
        run.appendCodePoint(e);
      }
    }
    runs.add(utf8(run));
    return runs;
  }

  /** The literal of a pattern {@code %literal%} (no {@code _}, one or more {@code %} on each side), if it is one. */
  Optional<byte[]> containedLiteral() {
    if (hasAnyOne() || elements.length < 1 || elements[0] != ANY_SEQUENCE
        || elements[elements.length - 1] != ANY_SEQUENCE) {
      return Optional.empty();
    }
    List<byte[]> nonEmpty = runs().stream().filter(r -> r.length > 0).toList();
    return nonEmpty.size() <= 1 ? Optional.of(nonEmpty.isEmpty() ? new byte[0] : nonEmpty.get(0)) : Optional.empty();
  }

  /** Adds the whole-string automaton of this pattern from {@code from}; returns where it ends. */
  int build(ByteNfa nfa, int from) {
    int at = from;
    for (int e : elements) {
      at = switch (e) {
        case ANY_ONE -> nfa.codePoint(at, CodePointSet.ALL);
        case ANY_SEQUENCE -> nfa.anyBytes(at);
        default -> nfa.literal(at, e);
      };
    }
    return at;
  }

  /** The pattern as SQL, for explain output. */
  String sql() {
    return "'" + text + "'" + (escape == '\\' ? "" : " escape '" + escape + "'");
  }

  private static byte[] utf8(CharSequence s) {
    return s.toString().getBytes(StandardCharsets.UTF_8);
  }

  // Spark's INVALID_FORMAT messages, with its quoting of string values (backslash and single quote escaped).

  private static String escapeInTheMiddle(String pattern, int c) {
    return "[INVALID_FORMAT.ESC_IN_THE_MIDDLE] The format is invalid: " + sqlValue(pattern)
        + ". The escape character is not allowed to precede " + sqlValue(Character.toString(c)) + ". SQLSTATE: 42601";
  }

  private static String escapeAtTheEnd(String pattern) {
    return "[INVALID_FORMAT.ESC_AT_THE_END] The format is invalid: " + sqlValue(pattern)
        + ". The escape character is not allowed to end with. SQLSTATE: 42601";
  }

  private static String sqlValue(String s) {
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }
}
