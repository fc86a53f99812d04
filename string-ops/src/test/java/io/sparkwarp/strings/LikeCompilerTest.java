package io.sparkwarp.strings;

import static io.sparkwarp.strings.TestStrings.matches;
import static io.sparkwarp.strings.TestStrings.printable;
import static io.sparkwarp.strings.TestStrings.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.sparkwarp.kernels.strings.DfaMatcher;
import io.sparkwarp.kernels.strings.SegmentMatcher;
import io.sparkwarp.kernels.strings.StringMatcher;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** LIKE against a re-implementation of Spark 4.1's escapeLikeRegex + DOTALL + matches(). */
class LikeCompilerTest {
  private static final int[] ALPHABET = {'a', 'b', 'A', '%', '_', '\\', '#', '.', '*', '$', '\n', '\r', 0xE9, 0x20AC,
      0x1F600};
  private static final char[] ESCAPES = {'\\', '#', 'a', '%', '_', 0xE9};

  /** Spark's Like: the pattern rewritten to a Java regex code point by code point, or an error. */
  private static Pattern sparkRegex(String pattern, char escape) {
    StringBuilder out = new StringBuilder("(?s)");
    int[] cps = pattern.codePoints().toArray();
    for (int i = 0; i < cps.length; i++) {
      int c = cps[i];
      if (c == escape && i + 1 < cps.length) {
        int next = cps[++i];
        if (next != '_' && next != '%' && next != escape) throw new IllegalArgumentException("escape in the middle");
        out.append(Pattern.quote(Character.toString(next)));
      } else if (c == escape) {
        throw new IllegalArgumentException("escape at the end");
      } else {
        out.append(c == '_' ? "." : c == '%' ? ".*" : Pattern.quote(Character.toString(c)));
      }
    }
    return Pattern.compile(out.toString());
  }

  @Test
  void agreesWithSparkOnRandomPatterns() {
    Random random = new Random(42);
    int patterns = 0;
    int invalid = 0;
    int checked = 0;
    int matched = 0;
    int segments = 0;
    for (int i = 0; i < 3000; i++) {
      char escape = ESCAPES[random.nextInt(ESCAPES.length)];
      String pattern = randomText(random, 7, ALPHABET);
      Pattern spark;
      try {
        spark = sparkRegex(pattern, escape);
      } catch (IllegalArgumentException e) {
        assertInstanceOf(CompiledPattern.Invalid.class, LikeCompiler.compile(pattern, escape), pattern);
        invalid++;
        continue;
      }
      CompiledPattern compiled = LikeCompiler.compile(pattern, escape);
      StringMatcher matcher = compiled.deviceMatcher().orElseThrow(() -> new AssertionError(compiled.describe()));
      if (matcher instanceof SegmentMatcher) segments++;
      patterns++;
      int[] used = pattern.codePoints().filter(c -> c != '%' && c != '_' && c != escape).toArray();
      for (int j = 0; j < 40; j++) {
        String s = random.nextBoolean() ? instance(random, pattern, escape)
            : randomText(random, 8, used.length > 0 && random.nextBoolean() ? used : ALPHABET);
        boolean expected = spark.matcher(s).matches();
        if (matches(matcher, s) != expected) {
          fail("like " + printable(pattern) + " escape '" + escape + "' on "
              + printable(s) + ": spark says " + expected + ", " + matcher.describe());
        }
        checked++;
        if (expected) matched++;
      }
    }
    System.out.printf("like differential: %d patterns (%d as segments), %d invalid, %d strings, %d matched%n",
        patterns, segments, invalid, checked, matched);
    assertTrue(invalid > 100 && segments > 100 && patterns - segments > 100);
    assertTrue(matched > checked / 5 && matched < checked * 9 / 10, matched + " of " + checked);
  }

  /** A string the (valid) pattern likely matches: wildcards filled at random, now and then one character changed. */
  private static String instance(Random random, String pattern, char escape) {
    StringBuilder b = new StringBuilder();
    int[] cps = pattern.codePoints().toArray();
    for (int i = 0; i < cps.length; i++) {
      int c = cps[i];
      if (c == escape) {
        b.appendCodePoint(cps[++i]);
      } else if (c == '%') {
        b.append(randomText(random, 3, ALPHABET));
      } else if (c == '_' || random.nextInt(20) == 0) {
        b.appendCodePoint(ALPHABET[random.nextInt(ALPHABET.length)]);
      } else {
        b.appendCodePoint(c);
      }
    }
    return b.toString();
  }

  private static String randomText(Random random, int maxLength, int[] alphabet) {
    StringBuilder b = new StringBuilder();
    int length = random.nextInt(maxLength + 1);
    for (int i = 0; i < length; i++) b.appendCodePoint(alphabet[random.nextInt(alphabet.length)]);
    return b.toString();
  }

  @Test
  void invalidEscapesCarrySparksMessages() {
    // Messages as Spark 4.1.3 raises them (AnalysisException.getMessage).
    assertInvalid("a\\b", '\\', "[INVALID_FORMAT.ESC_IN_THE_MIDDLE] The format is invalid: 'a\\\\b'. "
        + "The escape character is not allowed to precede 'b'. SQLSTATE: 42601");
    assertInvalid("ab\\", '\\', "[INVALID_FORMAT.ESC_AT_THE_END] The format is invalid: 'ab\\\\'. "
        + "The escape character is not allowed to end with. SQLSTATE: 42601");
    assertInvalid("it's\\x", '\\', "[INVALID_FORMAT.ESC_IN_THE_MIDDLE] The format is invalid: 'it\\'s\\\\x'. "
        + "The escape character is not allowed to precede 'x'. SQLSTATE: 42601");
    assertInvalid("a%", '%', "[INVALID_FORMAT.ESC_AT_THE_END] The format is invalid: 'a%'. "
        + "The escape character is not allowed to end with. SQLSTATE: 42601");
    assertInvalid("\uD83D\uDE00\\\uD83D\uDE00", '\\', "[INVALID_FORMAT.ESC_IN_THE_MIDDLE] The format is invalid: "
        + "'\uD83D\uDE00\\\\\uD83D\uDE00'. The escape character is not allowed to precede '\uD83D\uDE00'. "
        + "SQLSTATE: 42601");
    assertInvalid("x/y", '/', "[INVALID_FORMAT.ESC_IN_THE_MIDDLE] The format is invalid: 'x/y'. "
        + "The escape character is not allowed to precede 'y'. SQLSTATE: 42601");
  }

  private static void assertInvalid(String pattern, char escape, String message) {
    assertEquals(new CompiledPattern.Invalid(message), LikeCompiler.compile(pattern, escape));
  }

  @Test
  void escapedWildcardsAndEscapeCharactersAreLiteral() {
    assertEquals(SegmentMatcher.equalTo(utf8("50%")), matcher("50\\%"));
    assertEquals(SegmentMatcher.of(utf8("a_"), List.of(), utf8("\\")), matcher("a\\_%\\\\"));
    assertEquals(SegmentMatcher.equalTo(utf8("a%b")), matcher("a%%b", '%'));
    assertEquals(SegmentMatcher.of(utf8(""), List.of(utf8("_"), utf8("#")), utf8("")), matcher("%#_%##%", '#'));
    // With '_' as the escape character a lone '_' is an error, "__" a literal underscore.
    assertEquals(SegmentMatcher.equalTo(utf8("_")), matcher("__", '_'));
    assertInstanceOf(CompiledPattern.Invalid.class, LikeCompiler.compile("a_", '_'));
  }

  @Test
  void underscoreIsOneCodePointOfAnyLength() {
    StringMatcher m = matcher("a_b");
    assertInstanceOf(DfaMatcher.class, m);
    for (String s : List.of("axb", "a\nb", "a\u00E9b", "a\u20ACb", "a\uD83D\uDE00b")) assertTrue(matches(m, s), s);
    for (String s : List.of("ab", "axxb", "a\u00E9\u00E9b", "axb ", "")) assertFalse(matches(m, s), s);
    StringMatcher empty = matcher("");
    assertTrue(matches(empty, ""));
    assertFalse(matches(empty, " "));
    StringMatcher twoAnywhere = matcher("%__%");
    assertFalse(matches(twoAnywhere, "\uD83D\uDE00"));
    assertTrue(matches(twoAnywhere, "\uD83D\uDE00\u00E9"));
  }

  @Test
  void tpchPatterns() {
    assertEquals(SegmentMatcher.contains(utf8("green")), matcher("%green%"));
    assertEquals(SegmentMatcher.of(utf8(""), List.of(utf8("special"), utf8("requests")), utf8("")),
        matcher("%special%requests%"));
    assertEquals(SegmentMatcher.of(utf8(""), List.of(utf8("Customer"), utf8("Complaints")), utf8("")),
        matcher("%Customer%Complaints%"));
    assertEquals(SegmentMatcher.startsWith(utf8("PROMO")), matcher("PROMO%"));
    assertEquals(SegmentMatcher.startsWith(utf8("MEDIUM POLISHED")), matcher("MEDIUM POLISHED%"));
    assertEquals(SegmentMatcher.startsWith(utf8("forest")), matcher("forest%"));
    assertEquals(SegmentMatcher.endsWith(utf8("BRASS")), matcher("%BRASS"));
    assertTrue(matches(matcher("%special%requests%"), "carefully special deposits requests"));
    assertFalse(matches(matcher("%special%requests%"), "requests special"));
    assertTrue(matches(matcher("%Customer%Complaints%"), "Customer Complaints"));
    assertFalse(matches(matcher("%Customer%Complaints%"), "Customer Complaint"));
    assertTrue(matches(matcher("PROMO%"), "PROMO BRUSHED TIN"));
    assertFalse(matches(matcher("%BRASS"), "BRASS "));
  }

  @Test
  void surrogatePairsAndExplainOutput() {
    assertEquals("dfa[7 states x 7 classes: like 'a_' escape '#']", LikeCompiler.compile("a_", '#').describe());
    assertEquals("segments[prefix 'ab' suffix 'c']", LikeCompiler.compile("ab%c").describe());
    assertInstanceOf(CompiledPattern.Unsupported.class, LikeCompiler.compile("a\uD800"));
  }

  @Test
  void automataOverTheCapStayOnTheCpu() {
    CompiledPattern p = LikeCompiler.compile("%a" + "_".repeat(20) + "%");
    assertEquals(new CompiledPattern.Unsupported("like pattern needs more than 20000 DFA states"), p);
  }

  private static StringMatcher matcher(String pattern) {
    return matcher(pattern, '\\');
  }

  private static StringMatcher matcher(String pattern, char escape) {
    CompiledPattern p = LikeCompiler.compile(pattern, escape);
    return p.deviceMatcher().orElseThrow(() -> new AssertionError(p.describe()));
  }
}
