package io.sparkwarp.strings;

import io.sparkwarp.strings.RegexNode.Alternation;
import io.sparkwarp.strings.RegexNode.Anchor;
import io.sparkwarp.strings.RegexNode.Chars;
import io.sparkwarp.strings.RegexNode.Concat;
import io.sparkwarp.strings.RegexNode.Repeat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Reads a java.util.regex pattern, compiled without flags as Spark's RLIKE compiles it, into a {@link RegexNode}.
 * The pattern must already have compiled with {@code Pattern.compile}: syntax errors are not checked again. The
 * parser follows the JDK 17 parser's structure, so that it reads every accepted pattern the same way: {@code \Q..\E}
 * quoting is rewritten first as the JDK does; {@code ]} and a closing brace outside a class are literals; a quantifier
 * with nothing before it repeats the empty string; inline flags last to the end of the enclosing group; in a class,
 * {@code ]} first is a literal, {@code -} before {@code [} or {@code ]} is a literal, negation applies to nested
 * classes too, and case-insensitivity closes literals and ranges under ASCII case before any negation.
 *
 * <p>Supported beyond plain characters: {@code . ^ $ \A \Z \z}, classes and {@code \d \D \w \W \s \S \h \H \v \V},
 * alternation, all groups but lookaround and atomic ones, greedy and lazy quantifiers, and the inline flags {@code i}
 * (ASCII case, as CASE_INSENSITIVE without UNICODE_CASE) and {@code s} (DOTALL), set or scoped. Everything else
 * throws {@link UnsupportedPatternException} naming the construct.
 */
final class RegexParser {
  private static final int END = -1;

  private static final CodePointSet DIGIT = CodePointSet.range('0', '9');
  private static final CodePointSet WORD =
      CodePointSet.range('a', 'z').union(CodePointSet.range('A', 'Z')).union(DIGIT).union(CodePointSet.of('_'));
  private static final CodePointSet SPACE = CodePointSet.range('\t', '\r').union(CodePointSet.of(' '));
  private static final CodePointSet HORIZONTAL_SPACE = CodePointSet.ofAll('\t', ' ', 0xA0, 0x1680, 0x180E, 0x202F,
      0x205F, 0x3000).union(CodePointSet.range(0x2000, 0x200A));
  private static final CodePointSet VERTICAL_SPACE =
      CodePointSet.range('\n', '\r').union(CodePointSet.ofAll(0x85, 0x2028, 0x2029));
  /** What {@code .} matches without DOTALL: all but the line terminators. */
  private static final CodePointSet DOT =
      CodePointSet.ofAll('\n', '\r', 0x85, 0x2028, 0x2029).complement();

  private final int[] p;
  private int pos;
  private boolean caseInsensitive;
  private boolean dotAll;

  private RegexParser(int[] pattern) {
    this.p = pattern;
  }

  /**
   * @throws UnsupportedPatternException for a construct outside the regular core this compiler models exactly
   */
  static RegexNode parse(String regex) {
    RegexParser parser = new RegexParser(removeQuoting(regex.codePoints().toArray()));
    RegexNode root = parser.expr();
    if (parser.pos != parser.p.length) throw new IllegalStateException("unparsed rest of a valid regex: " + regex);
    return root;
  }

  /**
   * The JDK's rewrite of {@code \Q..\E}: inside a quote ASCII letters and non-ASCII characters stay, other ASCII
   * characters get a backslash, a digit opening the quote becomes {@code \x3d} (so no escape before the quote can
   * absorb it), and the quote ends at {@code \E} or at the end of the pattern.
   */
  private static int[] removeQuoting(int[] in) {
    int i = 0;
    while (i < in.length - 1 && !(in[i] == '\\' && in[i + 1] == 'Q')) i += in[i] == '\\' ? 2 : 1;
    if (i >= in.length - 1) return in;
    int[] out = new int[i + 3 * (in.length - i)];
    System.arraycopy(in, 0, out, 0, i);
    int n = i;
    i += 2;
    boolean inQuote = true;
    boolean beginQuote = true;
    while (i < in.length) {
      int c = in[i++];
      if (c >= 0x80 || isAsciiLetter(c)) {
        out[n++] = c;
      } else if (c >= '0' && c <= '9') {
        if (beginQuote) {
          out[n++] = '\\';
          out[n++] = 'x';
          out[n++] = '3';
        }
        out[n++] = c;
      } else if (c != '\\') {
        if (inQuote) out[n++] = '\\';
        out[n++] = c;
      } else if (inQuote) {
        if (i < in.length && in[i] == 'E') {
          i++;
          inQuote = false;
        } else {
          out[n++] = '\\';
          out[n++] = '\\';
        }
      } else if (i < in.length && in[i] == 'Q') {
        i++;
        inQuote = true;
        beginQuote = true;
        continue;
      } else {
        out[n++] = c;
        if (i < in.length) out[n++] = in[i++];
      }
      beginQuote = false;
    }
    return Arrays.copyOf(out, n);
  }

  private RegexNode expr() {
    List<RegexNode> alternatives = new ArrayList<>();
    alternatives.add(sequence());
    while (peek() == '|') {
      pos++;
      alternatives.add(sequence());
    }
    return alternatives.size() == 1 ? alternatives.get(0) : new Alternation(alternatives);
  }

  private RegexNode sequence() {
    List<RegexNode> items = new ArrayList<>();
    while (true) {
      int ch = peek();
      if (ch == END || ch == '|' || ch == ')') break;
      RegexNode item;
      switch (ch) {
        case '(' -> {
          item = group();
          if (item == null) continue;  // flags only: no quantifier may follow
        }
        case '[' -> {
          pos++;
          item = new Chars(charClass());
        }
        case '\\' -> item = escape();
        case '^' -> item = anchor(ByteNfa.Assertion.BEGIN, 1);
        case '$' -> item = anchor(ByteNfa.Assertion.DOLLAR, 1);
        case '.' -> {
          pos++;
          item = new Chars(dotAll ? CodePointSet.ALL : DOT);
        }
        // The JDK reads a quantifier with no atom before it (say the second one of x{2}{3}) as repeating nothing.
        case '{' -> item = new Concat(List.of());
        default -> {
          pos++;
          item = literal(ch);
        }
      }
      items.add(quantified(item));
    }
    return items.size() == 1 ? items.get(0) : new Concat(items);
  }

  /** A group; null for a flags-only group, whose flags then hold to the end of the enclosing group. */
  private RegexNode group() {
    int begin = pos++;
    boolean savedCaseInsensitive = caseInsensitive;
    boolean savedDotAll = dotAll;
    RegexNode body;
    if (peek() == '?') {
      pos++;
      int kind = p[pos++];
      switch (kind) {
        case ':' -> body = expr();
        case '=', '!', '>' -> throw unsupported(text(begin, pos) + "...) ("
            + (kind == '>' ? "atomic group" : kind == '=' ? "lookahead" : "negative lookahead") + ")");
        case '<' -> {
          if (peek() == '=' || peek() == '!') {
            throw unsupported(text(begin, pos + 1) + "...) (" + (peek() == '=' ? "" : "negative ") + "lookbehind)");
          }
          while (p[pos++] != '>') {
            // the name of a named group does not matter here
          }
          body = expr();
        }
        default -> {
          pos--;
          inlineFlags(begin);
          if (p[pos++] == ')') return null;
          body = expr();
        }
      }
    } else {
      body = expr();
    }
    pos++;  // ')'
    caseInsensitive = savedCaseInsensitive;
    dotAll = savedDotAll;
    return body;
  }

  private void inlineFlags(int groupBegin) {
    boolean on = true;
    while (true) {
      int ch = peek();
      switch (ch) {
        case '-' -> on = false;
        case 'i' -> caseInsensitive = on;
        case 's' -> dotAll = on;
        // Switching off a flag that cannot be on changes nothing.
        case 'm', 'd', 'u', 'c', 'x', 'U' -> {
          if (on) {
            throw unsupported("inline flag " + (char) ch + " (" + flagName(ch) + ") in " + text(groupBegin, pos + 1));
          }
        }
        default -> {
          return;
        }
      }
      pos++;
    }
  }

  private static String flagName(int flag) {
    return switch (flag) {
      case 'm' -> "MULTILINE";
      case 'd' -> "UNIX_LINES";
      case 'u' -> "UNICODE_CASE";
      case 'c' -> "CANON_EQ";
      case 'x' -> "COMMENTS";
      default -> "UNICODE_CHARACTER_CLASS";
    };
  }

  private RegexNode quantified(RegexNode item) {
    int begin = pos;
    int min;
    int max;
    switch (peek()) {
      case '?' -> {
        min = 0;
        max = 1;
      }
      case '*' -> {
        min = 0;
        max = Repeat.UNBOUNDED;
      }
      case '+' -> {
        min = 1;
        max = Repeat.UNBOUNDED;
      }
      case '{' -> {
        pos++;
        min = number();
        max = min;
        if (peek() == ',') {
          pos++;
          max = peek() == '}' ? Repeat.UNBOUNDED : number();
        }
      }
      default -> {
        return item;
      }
    }
    pos++;  // the quantifier's last character
    if (peek() == '+') throw unsupported("possessive quantifier " + text(begin, pos + 1));
    if (peek() == '?') pos++;  // lazy: the same strings match, only the chosen match differs
    // java.util.regex ends a group's repeat at its first empty iteration, even below the minimum count. That equals
    // the language unless an iteration can be empty only at an anchor and a later one non-empty, as in (^|a){2}b.
    if (min >= 2 && item.matchesEmpty() && !item.matchesEmptyFreely() && item.matchesNonEmpty()) {
      throw unsupported("repeat " + text(begin, pos) + " of a group that matches empty only at an anchor "
          + "(java.util.regex stops repeating at an empty iteration)");
    }
    return new Repeat(item, min, max);
  }

  private int number() {
    int n = 0;
    while (peek() >= '0' && peek() <= '9') n = n * 10 + (p[pos++] - '0');
    return n;
  }

  private RegexNode anchor(ByteNfa.Assertion assertion, int length) {
    pos += length;
    return new Anchor(assertion);
  }

  /** An escape outside a class. */
  private RegexNode escape() {
    int ch = at(pos + 1);
    switch (ch) {
      case 'p', 'P' -> throw unsupported("Unicode character property " + propertyText());
      case '1', '2', '3', '4', '5', '6', '7', '8', '9' -> throw unsupported("backreference " + text(pos, pos + 2));
      case 'k' -> throw unsupported("named backreference \\k<...>");
      case 'b' -> throw unsupported(at(pos + 2) == '{' ? "grapheme cluster boundary \\b{g}" : "word boundary \\b");
      case 'B' -> throw unsupported("non-word boundary \\B");
      case 'G' -> throw unsupported("end of previous match \\G");
      case 'R' -> throw unsupported("linebreak matcher \\R");
      case 'X' -> throw unsupported("grapheme cluster \\X");
      case 'A' -> {
        return anchor(ByteNfa.Assertion.BEGIN, 2);
      }
      case 'Z' -> {
        return anchor(ByteNfa.Assertion.DOLLAR, 2);
      }
      case 'z' -> {
        return anchor(ByteNfa.Assertion.END_OF_INPUT, 2);
      }
      default -> {
        CodePointSet predefined = predefined(ch);
        if (predefined != null) {
          pos += 2;
          return new Chars(predefined);
        }
        return literal(escapedChar());
      }
    }
  }

  /** The body of a class, from just after its {@code [} to just after its {@code ]}. */
  private CodePointSet charClass() {
    boolean negated = false;
    if (peek() == '^') {
      pos++;
      negated = true;
    }
    CodePointSet set = CodePointSet.EMPTY;
    boolean hasMembers = false;
    while (true) {
      int ch = peek();
      if (ch == '[') {
        pos++;
        set = set.union(charClass());
      } else if (ch == '&' && at(pos + 1) == '&') {
        throw unsupported("character class intersection &&");
      } else if (ch == ']' && hasMembers) {
        pos++;
        return negated ? set.complement() : set;
      } else {
        set = set.union(classMember());
      }
      hasMembers = true;
    }
  }

  /** One character, range or predefined class inside a class. */
  private CodePointSet classMember() {
    int first;
    if (peek() == '\\') {
      int ch = at(pos + 1);
      if (ch == 'p' || ch == 'P') throw unsupported("Unicode character property " + propertyText());
      // As in the JDK, \v starting a range is the single character VT, not vertical space.
      CodePointSet predefined = ch == 'v' && at(pos + 2) == '-' ? null : predefined(ch);
      if (predefined != null) {
        pos += 2;
        return predefined;
      }
      first = escapedChar();
    } else {
      first = p[pos++];
    }
    if (peek() == '-' && at(pos + 1) != '[' && at(pos + 1) != ']') {
      pos++;
      int last = peek() == '\\' ? escapedChar() : p[pos++];
      return caseClosed(CodePointSet.range(first, last));
    }
    return caseClosed(CodePointSet.of(checkNotSurrogate(first)));
  }

  private static CodePointSet predefined(int ch) {
    return switch (ch) {
      case 'd' -> DIGIT;
      case 'D' -> DIGIT.complement();
      case 'w' -> WORD;
      case 'W' -> WORD.complement();
      case 's' -> SPACE;
      case 'S' -> SPACE.complement();
      case 'h' -> HORIZONTAL_SPACE;
      case 'H' -> HORIZONTAL_SPACE.complement();
      case 'v' -> VERTICAL_SPACE;
      case 'V' -> VERTICAL_SPACE.complement();
      default -> null;
    };
  }

  /** The character an escape that stands for one character denotes; from its backslash to just past it. */
  private int escapedChar() {
    pos++;
    int ch = p[pos++];
    return switch (ch) {
      case '0' -> octal();
      case 'x' -> hex();
      case 'u' -> utf16Escape();
      case 'c' -> p[pos++] ^ 64;
      case 'N' -> namedChar();
      case 'a' -> 0x07;
      case 'e' -> 0x1B;
      case 'f' -> '\f';
      case 'n' -> '\n';
      case 'r' -> '\r';
      case 't' -> '\t';
      case 'v' -> 0x0B;
      default -> ch;  // an escaped non-alphanumeric character stands for itself
    };
  }

  /** {@code \0n}, {@code \0nn} or {@code \0mnn} (m at most 3). */
  private int octal() {
    int n = p[pos++] - '0';
    if (!isOctal(peek())) return n;
    int m = p[pos++] - '0';
    if (!isOctal(peek()) || n > 3) return n * 8 + m;
    return n * 64 + m * 8 + (p[pos++] - '0');
  }

  private int hex() {
    int value = 0;
    if (peek() == '{') {
      pos++;
      while (peek() != '}') value = value * 16 + Character.digit(p[pos++], 16);
      pos++;
      return value;
    }
    for (int i = 0; i < 2; i++) value = value * 16 + Character.digit(p[pos++], 16);
    return value;
  }

  /** A UTF-16 unit escape (u and four hex digits), joined with a following one when the two form a surrogate pair. */
  private int utf16Escape() {
    int unit = hex4();
    if (Character.isHighSurrogate((char) unit) && peek() == '\\' && at(pos + 1) == 'u') {
      int save = pos;
      pos += 2;
      int low = hex4();
      if (Character.isLowSurrogate((char) low)) return Character.toCodePoint((char) unit, (char) low);
      pos = save;
    }
    return unit;
  }

  private int hex4() {
    int value = 0;
    for (int i = 0; i < 4; i++) value = value * 16 + Character.digit(p[pos++], 16);
    return value;
  }

  private int namedChar() {
    int begin = ++pos;  // past '{'
    while (p[pos] != '}') pos++;
    return Character.codePointOf(new String(p, begin, pos++ - begin));
  }

  private RegexNode literal(int codePoint) {
    return new Chars(caseClosed(CodePointSet.of(checkNotSurrogate(codePoint))));
  }

  private CodePointSet caseClosed(CodePointSet set) {
    return caseInsensitive ? set.withAsciiCaseVariants() : set;
  }

  /**
   * The JDK matches a lone surrogate character against one half of a surrogate pair in the input (and then goes on
   * inside the pair), which no automaton over whole UTF-8 characters can do.
   */
  private static int checkNotSurrogate(int codePoint) {
    if (codePoint >= Character.MIN_SURROGATE && codePoint <= Character.MAX_SURROGATE) {
      throw unsupported(String.format("lone surrogate U+%04X (java.util.regex matches it against half of a pair)",
          codePoint));
    }
    return codePoint;
  }

  /** {@code \p{...}}, {@code \pL} and the like, as written. */
  private String propertyText() {
    int end = pos + 3;
    if (at(pos + 2) == '{') {
      while (end < p.length && p[end - 1] != '}') end++;
    }
    return text(pos, Math.min(end, p.length));
  }

  private String text(int from, int to) {
    return new String(p, from, Math.min(to, p.length) - from);
  }

  private int peek() {
    return at(pos);
  }

  private int at(int i) {
    return i < p.length ? p[i] : END;
  }

  private static boolean isOctal(int c) {
    return c >= '0' && c <= '7';
  }

  private static boolean isAsciiLetter(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  private static UnsupportedPatternException unsupported(String construct) {
    return new UnsupportedPatternException("regex " + construct + " is not supported");
  }
}
