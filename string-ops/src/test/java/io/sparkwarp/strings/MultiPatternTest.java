package io.sparkwarp.strings;

import static io.sparkwarp.strings.TestStrings.matches;
import static io.sparkwarp.strings.TestStrings.utf8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.sparkwarp.kernels.strings.DfaMatcher;
import io.sparkwarp.kernels.strings.StringMatcher;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** ORs of LIKE patterns on one column against the OR of the single patterns' matchers. */
class MultiPatternTest {
  @Test
  void containsPatternsBecomeAhoCorasick() {
    StringMatcher union = MultiPattern.anyOf(List.of("%green%", "%%blue%", "%red%%")).deviceMatcher().get();
    assertEquals(AhoCorasick.anyOf(List.of(utf8("green"), utf8("blue"), utf8("red"))).deviceMatcher().get(), union);
    assertEquals("dfa[11 states x 9 classes: like '%green%' or '%%blue%' or '%red%%']", union.describe());
  }

  @Test
  void mixedPatternsAgreeWithTheirOr() {
    List<List<String>> unions = List.of(
        List.of("PROMO%", "%BRASS", "%green%"),
        List.of("a_c", "%b%", "\u00E9%\uD83D\uDE00"),
        List.of("%a%b%", "_", ""),
        List.of("ab\\%%", "%\\_"),
        List.of("%special%requests%", "%Customer%Complaints%"));
    Random random = new Random(9);
    String alphabet = "abc%_\u00E9\uD83D\uDE00BRASPOM ";
    for (List<String> patterns : unions) {
      StringMatcher union = MultiPattern.anyOf(patterns).deviceMatcher().orElseThrow();
      assertInstanceOf(DfaMatcher.class, union);
      List<StringMatcher> singles =
          patterns.stream().map(p -> LikeCompiler.compile(p).deviceMatcher().orElseThrow()).toList();
      for (int i = 0; i < 2000; i++) {
        StringBuilder s = new StringBuilder();
        if (random.nextBoolean()) s.append(patterns.get(random.nextInt(patterns.size())).replace("%", ""));
        int length = random.nextInt(6);
        for (int j = 0; j < length; j++) {
          s.insert(random.nextInt(s.length() + 1), Character.toChars(alphabet.codePointAt(
              alphabet.offsetByCodePoints(0, random.nextInt(alphabet.codePointCount(0, alphabet.length()))))));
        }
        String str = s.toString();
        assertEquals(singles.stream().anyMatch(m -> matches(m, str)), matches(union, str), patterns + " on " + str);
      }
    }
  }

  @Test
  void oneInvalidPatternMakesTheUnionInvalid() {
    assertEquals(LikeCompiler.compile("b\\x"), MultiPattern.anyOf(List.of("%a%", "b\\x")));
    assertInstanceOf(CompiledPattern.Invalid.class, MultiPattern.anyOf(List.of("a#", "b"), '#'));
  }

  @Test
  void singlePatternsAndLiteralsCompileAlone() {
    assertEquals(LikeCompiler.compile("%abc%"), MultiPattern.anyOf(List.of("%abc%")));
    assertEquals(LiteralMatchers.contains(utf8("x")), MultiPattern.containsAny(List.of(utf8("x"))));
    assertEquals(AhoCorasick.anyOf(List.of(utf8("x"), utf8("y"))),
        MultiPattern.containsAny(List.of(utf8("x"), utf8("y"))));
  }

  @Test
  void unionsOverTheCapStayOnTheCpu() {
    assertEquals(new CompiledPattern.Unsupported("like patterns needs more than 20000 DFA states"),
        MultiPattern.anyOf(List.of("%a" + "_".repeat(20) + "%", "b")));
  }
}
