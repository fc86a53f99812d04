package io.sparkwarp.strings;

import static io.sparkwarp.strings.TestStrings.matches;
import static io.sparkwarp.strings.TestStrings.printable;
import static io.sparkwarp.strings.TestStrings.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.strings.DfaMatcher;
import io.sparkwarp.kernels.strings.SegmentMatcher;
import io.sparkwarp.kernels.strings.StringMatcher;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.junit.jupiter.api.Test;

/** RLIKE compilation: exact corner cases of java.util.regex, unsupported constructs, invalid regexes, size caps. */
class RegexCompilerTest {
  /** Asserts that the compiled regex and java.util.regex's find agree, and that the strings give {@code expected}. */
  private static void assertFinds(String regex, boolean expected, String... strings) {
    CompiledPattern compiled = RegexCompiler.compile(regex);
    StringMatcher m = compiled.deviceMatcher().orElseThrow(() -> new AssertionError(regex + ": " + compiled));
    for (String s : strings) {
      String what = "rlike " + printable(regex) + " on " + printable(s);
      assertEquals(expected, Pattern.compile(regex).matcher(s).find(), "java.util.regex: " + what);
      assertEquals(expected, matches(m, s), what);
    }
  }

  /** Asserts agreement with java.util.regex on every string of up to four characters from a small alphabet. */
  private static void assertAgreesOnAllShortStrings(String regex) {
    StringMatcher m = RegexCompiler.compile(regex).deviceMatcher().orElseThrow(() -> new AssertionError(regex));
    Pattern java = Pattern.compile(regex);
    String[] alphabet = {"a", "b", "c", "d", "\n", "\r", "\u00E9"};
    List<String> strings = List.of("");
    for (int length = 0; length <= 4; length++) {
      for (String s : strings) {
        assertEquals(java.matcher(s).find(), matches(m, s),
            "rlike " + printable(regex) + " on " + printable(s));
      }
      strings = strings.stream().flatMap(s -> Arrays.stream(alphabet).map(c -> s + c)).toList();
    }
  }

  @Test
  void backtrackingCornersAgreeOnAllShortStrings() {
    for (String regex : List.of("(a|ab)(c|bcd)(d*)", "(a|b)*?c", "(?:a*)*b", "(?:a?)*?b", "(a*)+$", "(?:$\n?)+",
        "(^a|b){2,}", "(?:\\z|a)+", "|a", "(?:)+b", "()*$", "a|(?i)B|c", "^(a|b)*?$", "(a{0,2}b?){2,3}c",
        "(?:a|b\\Z)+\\z", "(?:\\r|\\n|\\r\\n)$", "\\r?$", "^\\Z", "[^a]{2}$", "(?s).$", "\\s+$",
        "(?:(a)|b)+?c", "a{2,}?$", "(?:^|b)+c")) {
      assertAgreesOnAllShortStrings(regex);
    }
  }

  @Test
  void dollarAllowsOnlyOneFinalLineTerminator() {
    assertFinds("a$", true, "a", "a\n", "a\r\n", "a\r", "a\u0085", "a\u2028", "a\u2029", "ba\n");
    assertFinds("a$", false, "a\n\n", "a\n\r", "a ", "a\r\r", "a\u2028\n", "ab");
    assertFinds("^$", true, "", "\n", "\r\n", "\u2029");
    assertFinds("^$", false, "\n\n", " ", "\r\r\n");
    // $ never matches between \r and \n, and it matches without consuming the terminator.
    assertFinds("\r$", false, "\r\n", "a\r\n");
    assertFinds("\r$", true, "\r", "\r\r\n");
    assertFinds("a$\n", true, "a\n");
    assertFinds("a$\r\n", true, "a\r\n");
    assertFinds("a$\\s", true, "a\r\n", "a\n");
    assertFinds("$^", true, "", "\n");
    assertFinds("a\\Z", true, "a\n", "a");
    assertFinds("a\\z", true, "a", "xa");
    assertFinds("a\\z", false, "a\n", "ab");
    assertFinds("(a$|b)c", true, "bc");
    assertFinds("(a$|b)c", false, "ac", "a\nc");
    assertFinds("a$$\\Z{2}", true, "a\r\n");
  }

  @Test
  void caretAndStartAnchorsHoldOnlyAtTheStart() {
    assertFinds("^ab", true, "ab", "abc");
    assertFinds("^ab", false, "cab", "\nab");
    assertFinds("x|^ab", true, "zx", "ab");
    assertFinds("(^a|b)+c", true, "ac", "abbc", "xbc");
    assertFinds("(^a|b)+c", false, "xac");
    assertFinds("\\Aa", true, "ab");
    assertFinds("a^", false, "a", "aa");
    assertFinds("^*a", true, "ba");
    assertFinds("(?:^)?a", true, "ba");
  }

  @Test
  void dotAndClassesCoverWholeCodePoints() {
    assertFinds("^.$", true, "a", "\u00E9", "\u20AC", "\uD83D\uDE00", "a\n");
    assertFinds("^.$", false, "\n", "\r", "\u0085", "\u2028", "\u2029", "ab", "");
    assertFinds("(?s)^.$", true, "\n", "\u2029", "\uD83D\uDE00");
    assertFinds("^[^a]$", true, "\uD83D\uDE00", "\n", "b");
    assertFinds("^[^\\x{1F600}]$", false, "\uD83D\uDE00");
    assertFinds("^[\\x{1F600}-\\x{1F64F}é]+$", true, "\uD83D\uDE00\u00E9\uD83D\uDE4F");
    assertFinds("^\\W$", true, "\uD83D\uDE00", "\u00E9");
    assertFinds("^\\w\\d\\s\\h\\v$", true, "a1\t\u3000\u2028");
    assertFinds("\\uD83D\\uDE00", true, "x\uD83D\uDE00");
  }

  @Test
  void caseInsensitivityIsAsciiOnly() {
    assertFinds("(?i)k", true, "K", "k");
    assertFinds("(?i)k", false, "\u212A");
    assertFinds("(?i)s", false, "\u017F");
    assertFinds("(?i)\u00E9", false, "\u00C9");
    assertFinds("(?i)[^k]", false, "K", "k");
    assertFinds("(?i)[a-c]", true, "B");
    assertFinds("(?i)[Z-a]", true, "z", "A", "_");
    assertFinds("(a(?i)b)c", true, "aBc");
    assertFinds("(a(?i)b)c", false, "aBC");
    assertFinds("a(?i)b|c", true, "C");
    assertFinds("(?i:a)a", false, "AA");
    assertFinds("(?i)a(?-i)a", true, "Aa");
    assertFinds("(?i)a(?-i)a", false, "AA");
  }

  @Test
  void groupRepeatsEndAtAnEmptyIterationAsInJava() {
    // Java accepts an empty iteration only as the last one, and then whatever the count: these equal the language.
    assertFinds("(?:^|a){1,2}b", true, "ab", "b");
    assertFinds("(?:a|){3}b", true, "ab");
    assertFinds("(?:^){2}a", true, "a");
    assertFinds("(?:^|a)(?:^|a)b", true, "ab");
    assertFinds("x(?:$|\\n)*", true, "x\n");
  }

  @Test
  void parsesLikeTheJdk() {
    assertFinds("^a{2}{3}$", true, "aa");
    assertFinds("^{2}$", true, "");
    assertFinds("a]b}", true, "a]b}");
    assertFinds("^[]a]+$", true, "]a]");
    assertFinds("^[^]a]$", true, "b");
    assertFinds("^[^]a]$", false, "]");
    assertFinds("^[a-]+$", true, "-a");
    assertFinds("^[a-[c]]+$", true, "a-c");
    assertFinds("^[\\v-\\x0D]+$", true, "\u000B\r");
    assertFinds("^[\\d-z]+$", true, "1-z");
    assertFinds("^[^a[b]]$", true, "c");
    assertFinds("^[^a[b]]$", false, "a", "b");
    assertFinds("\\x4\\Qa\\E", true, "J");
    assertFinds("^\\Q.*\\E$", true, ".*");
    assertFinds("^\\Q1\\E\\Q\\\\E", true, "1\\");
    assertFinds("\\Qa", true, "a");
    assertFinds("^\\0101\\0078\\x{1F600}\\u00e9\\cA\\e\\a\\t$", true, "A\u00078\uD83D\uDE00\u00E9\u0001\u001B\u0007\t");
    assertFinds("\\N{LATIN SMALL LETTER A}", true, "a");
    assertFinds("^(?<name>a)(?:b)(c)$", true, "abc");
    assertFinds("^a|", true, "b");
    assertFinds("^(|a)b$", true, "b", "ab");
    assertFinds("^a*?b+?c??d{1,2}?$", true, "bd", "aabbcdd");
  }

  @Test
  void literalRegexesBecomeSegmentOrAhoCorasickMatchers() {
    assertEquals(SegmentMatcher.contains(utf8("green")), matcher("green"));
    assertEquals(SegmentMatcher.startsWith(utf8("a.b")), matcher("^\\Qa.b\\E"));
    assertEquals(SegmentMatcher.contains(utf8("")), matcher(""));
    StringMatcher ahoCorasick = matcher("he|she|his|hers");
    assertEquals(AhoCorasick.anyOf(List.of(utf8("he"), utf8("she"), utf8("his"), utf8("hers"))).deviceMatcher().get(),
        ahoCorasick);
    // Minimal DFAs are canonical: the same language through the NFA gives the same table.
    assertEquals(ahoCorasick, matcher("h(?:e|is|ers)|she"));
    assertInstanceOf(DfaMatcher.class, matcher("gr[ae]y"));
  }

  @Test
  void unsupportedConstructsNameThemselves() {
    Map<String, String> reasons = Map.ofEntries(
        Map.entry("(a)\\1", "regex backreference \\1 is not supported"),
        Map.entry("(?<n>a)\\k<n>", "regex named backreference \\k<...> is not supported"),
        Map.entry("a(?=b)", "regex (?=...) (lookahead) is not supported"),
        Map.entry("a(?!b)", "regex (?!...) (negative lookahead) is not supported"),
        Map.entry("(?<=a)b", "regex (?<=...) (lookbehind) is not supported"),
        Map.entry("(?<!a)b", "regex (?<!...) (negative lookbehind) is not supported"),
        Map.entry("(?>a|ab)c", "regex (?>...) (atomic group) is not supported"),
        Map.entry("a*+", "regex possessive quantifier *+ is not supported"),
        Map.entry("a++b", "regex possessive quantifier ++ is not supported"),
        Map.entry("a?+", "regex possessive quantifier ?+ is not supported"),
        Map.entry("a{2,3}+", "regex possessive quantifier {2,3}+ is not supported"),
        Map.entry("\\p{Alpha}", "regex Unicode character property \\p{Alpha} is not supported"),
        Map.entry("[\\pL]", "regex Unicode character property \\pL is not supported"),
        Map.entry("\\P{IsLatin}x", "regex Unicode character property \\P{IsLatin} is not supported"),
        Map.entry("\\bword", "regex word boundary \\b is not supported"),
        Map.entry("a\\B", "regex non-word boundary \\B is not supported"),
        Map.entry("\\b{g}", "regex grapheme cluster boundary \\b{g} is not supported"),
        Map.entry("\\Ga", "regex end of previous match \\G is not supported"),
        Map.entry("a\\R", "regex linebreak matcher \\R is not supported"),
        Map.entry("\\X", "regex grapheme cluster \\X is not supported"),
        Map.entry("[a-z&&[^e]]", "regex character class intersection && is not supported"),
        Map.entry("(?m)^a", "regex inline flag m (MULTILINE) in (?m is not supported"),
        Map.entry("(?x)a b", "regex inline flag x (COMMENTS) in (?x is not supported"),
        Map.entry("(?iu)\u00E9", "regex inline flag u (UNICODE_CASE) in (?iu is not supported"),
        Map.entry("(?d:a$)", "regex inline flag d (UNIX_LINES) in (?d is not supported"),
        Map.entry("(?U)\\w", "regex inline flag U (UNICODE_CHARACTER_CLASS) in (?U is not supported"),
        Map.entry("(?c)a", "regex inline flag c (CANON_EQ) in (?c is not supported"),
        Map.entry("(?:^|a){2}b", "regex repeat {2} of a group that matches empty only at an anchor "
            + "(java.util.regex stops repeating at an empty iteration) is not supported"),
        Map.entry("(?:^a?){2,}b", "regex repeat {2,} of a group that matches empty only at an anchor "
            + "(java.util.regex stops repeating at an empty iteration) is not supported"),
        Map.entry("\\uD83D", "regex lone surrogate U+D83D (java.util.regex matches it against half of a pair) is "
            + "not supported"),
        Map.entry("[\\x{DE00}a]", "regex lone surrogate U+DE00 (java.util.regex matches it against half of a pair) "
            + "is not supported"));
    reasons.forEach((regex, reason) ->
        assertEquals(new CompiledPattern.Unsupported(reason), RegexCompiler.compile(regex), regex));
  }

  @Test
  void invalidRegexesCarryJavasMessage() {
    for (String regex : List.of("(", "a)", "[a", "a{", "a{2,1}", "*a", "a**", "\\", "\\k<x>", "(?<n>a)(?<n>b)",
        "\\x{110000}", "[b-a]", "\\E", "(?i", "a{,2}", "\\c", "\\0")) {
      String message = null;
      try {
        Pattern.compile(regex);
      } catch (PatternSyntaxException e) {
        message = e.getMessage();
      }
      assertEquals(new CompiledPattern.Invalid(message), RegexCompiler.compile(regex), regex);
    }
  }

  @Test
  void largeAutomataStayOnTheCpuWithTheReason() {
    assertEquals(new CompiledPattern.Unsupported("regex needs more than 20000 DFA states"),
        RegexCompiler.compile("[ab]*a[ab]{20}"));
    assertEquals(new CompiledPattern.Unsupported("regex needs more than 20000 automaton nodes (counted repeats such "
        + "as {30000} are expanded copy by copy)"), RegexCompiler.compile("xa{30000}"));
    CompiledPattern wide = RegexCompiler.compile("a[b-z]{6000}");
    assertInstanceOf(CompiledPattern.Unsupported.class, wide);
    assertTrue(((CompiledPattern.Unsupported) wide).reason().matches(
        "regex needs \\d+ DFA states x \\d+ byte classes, more than the 16384 table entries of a device matcher"),
        wide.describe());
  }

  @Test
  void explainOutput() {
    assertEquals("dfa[3 states x 3 classes: rlike 'a+b']", RegexCompiler.compile("a+b").describe());
    assertEquals("not on the GPU: regex word boundary \\b is not supported", RegexCompiler.compile("\\b").describe());
    assertTrue(RegexCompiler.compile("(").describe().startsWith("invalid pattern, left to Spark: Unclosed group"));
  }

  private static StringMatcher matcher(String regex) {
    CompiledPattern p = RegexCompiler.compile(regex);
    return p.deviceMatcher().orElseThrow(() -> new AssertionError(p.describe()));
  }
}
