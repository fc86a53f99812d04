package io.sparkwarp.strings;

import static io.sparkwarp.strings.TestStrings.matches;
import static io.sparkwarp.strings.TestStrings.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.strings.DfaMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Aho-Corasick against a naive "contains any of". */
class AhoCorasickTest {
  private static DfaMatcher compile(List<String> literals) {
    List<byte[]> bytes = literals.stream().map(TestStrings::utf8).toList();
    CompiledPattern p = AhoCorasick.anyOf(bytes);
    return (DfaMatcher) p.deviceMatcher().orElseThrow(() -> new AssertionError(p.describe()));
  }

  private static void assertAgreesWithNaive(List<String> literals, String alphabet, long seed) {
    DfaMatcher m = compile(literals);
    Random random = new Random(seed);
    int matched = 0;
    for (int i = 0; i < 3000; i++) {
      StringBuilder s = new StringBuilder();
      int length = random.nextInt(12);
      for (int j = 0; j < length; j++) s.appendCodePoint(alphabet.codePointAt(alphabet.offsetByCodePoints(0,
          random.nextInt(alphabet.codePointCount(0, alphabet.length())))));
      boolean expected = literals.stream().anyMatch(l -> s.toString().contains(l));
      assertEquals(expected, matches(m, s.toString()), literals + " in " + s);
      if (expected) matched++;
    }
    assertTrue(matched > 100 && matched < 2900, literals + ": " + matched + " of 3000 matched");
  }

  @Test
  void overlappingLiterals() {
    assertAgreesWithNaive(List.of("he", "she", "his", "hers"), "hesrix", 1);
    DfaMatcher m = compile(List.of("he", "she", "his", "hers"));
    assertTrue(matches(m, "ushers"));
    assertTrue(matches(m, "xhis"));
    assertEquals(false, matches(m, "hsi"));
  }

  @Test
  void prefixesAndSuffixesOfOtherLiterals() {
    assertAgreesWithNaive(List.of("abcd", "ab", "bcd", "c"), "abcdx", 2);
    assertAgreesWithNaive(List.of("aaab", "aab", "ab"), "ab", 3);
    assertAgreesWithNaive(List.of("abab", "babb"), "ab", 4);
  }

  @Test
  void multiByteLiterals() {
    // U+00E9 and U+00EA share their lead byte, U+20AC and U+2028 two bytes; U+1F600 is four bytes.
    assertAgreesWithNaive(List.of("\u00E9t\u00E9", "\u00EA", "\u20AC5", "\uD83D\uDE00"),
        "\u00E9\u00EAt\u20AC5\u2028\uD83D\uDE00\uD83D\uDE01", 5);
  }

  @Test
  void randomLiteralSets() {
    Random random = new Random(6);
    String alphabet = "abc\u00E9\uD83D\uDE00";
    for (int t = 0; t < 40; t++) {
      List<String> literals = new ArrayList<>();
      int n = 1 + random.nextInt(6);
      for (int i = 0; i < n; i++) {
        StringBuilder l = new StringBuilder();
        int length = 1 + random.nextInt(4);
        for (int j = 0; j < length; j++) {
          l.appendCodePoint(alphabet.codePointAt(alphabet.offsetByCodePoints(0, random.nextInt(5))));
        }
        literals.add(l.toString());
      }
      DfaMatcher m = compile(literals);
      for (int i = 0; i < 500; i++) {
        StringBuilder s = new StringBuilder();
        int length = random.nextInt(10);
        for (int j = 0; j < length; j++) {
          s.appendCodePoint(alphabet.codePointAt(alphabet.offsetByCodePoints(0, random.nextInt(5))));
        }
        assertEquals(literals.stream().anyMatch(l -> s.toString().contains(l)), matches(m, s.toString()),
            literals + " in " + s);
      }
    }
  }

  @Test
  void emptyLiteralIsAlwaysFound() {
    DfaMatcher m = compile(List.of("abc", ""));
    assertEquals(1, m.stateCount());
    assertTrue(matches(m, ""));
    assertTrue(matches(m, "xyz"));
  }

  @Test
  void foundIsAnAcceptingSink() {
    DfaMatcher m = compile(List.of("ab", "cd"));
    int s = m.startState();
    for (byte b : utf8("xab")) s = m.next(s, m.classOf(b));
    assertTrue(m.accepting(s) && m.isSink(s));
    assertEquals("dfa[4 states x 5 classes: contains any of 'ab', 'cd']", m.describe());
  }

  @Test
  void tooManyStatesStayOnTheCpu() {
    List<byte[]> literals = new ArrayList<>();
    for (int i = 0; i < 3000; i++) literals.add(utf8(String.format("lit%08d", i * 7919)));
    CompiledPattern p = AhoCorasick.anyOf(literals);
    assertInstanceOf(CompiledPattern.Unsupported.class, p);
    assertTrue(p.describe().contains("literals need"), p.describe());
  }
}
