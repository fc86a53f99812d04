package io.sparkwarp.strings;

import static io.sparkwarp.strings.TestStrings.matches;
import static io.sparkwarp.strings.TestStrings.printable;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.sparkwarp.kernels.strings.StringMatcher;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.junit.jupiter.api.Test;

/**
 * The compiled regex automata against java.util.regex itself ({@code Pattern.compile(r).matcher(s).find()}, which
 * is Spark's RLIKE) on thousands of random patterns of the supported subset and strings drawn from their
 * characters, line terminators and 1 to 4 byte UTF-8.
 */
class RegexDifferentialTest {
  private static final int STRINGS_PER_PATTERN = 60;

  @Test
  void agreesWithJavaRegexOnRandomPatterns() {
    check(new Random(0x5EED), RandomRegex.ALPHABET, 4000);
  }

  @Test
  void agreesWithJavaRegexOnRandomPatternsOverFewCharacters() {
    check(new Random(0xA1FA), RandomRegex.NARROW_ALPHABET, 2500);
  }

  private static void check(Random random, int[] alphabet, int count) {
    RandomRegex patterns = new RandomRegex(random, alphabet);
    int checked = 0;
    int matched = 0;
    int tooLarge = 0;
    int emptyIterations = 0;
    for (int i = 0; i < count; i++) {
      String regex = patterns.next();
      Pattern java = Pattern.compile(regex);
      CompiledPattern compiled = RegexCompiler.compile(regex);
      if (compiled instanceof CompiledPattern.Unsupported u && u.reason().contains("more than")) {
        tooLarge++;
        continue;
      }
      if (compiled instanceof CompiledPattern.Unsupported u && u.reason().contains("empty iteration")) {
        emptyIterations++;
        continue;
      }
      StringMatcher matcher = compiled.deviceMatcher()
          .orElseThrow(() -> new AssertionError(printable(regex) + ": " + compiled.describe()));
      for (int j = 0; j < STRINGS_PER_PATTERN; j++) {
        String s = randomString(random, patterns.usedCharacters(), alphabet);
        boolean expected = java.matcher(s).find();
        if (matches(matcher, s) != expected) {
          fail("regex " + printable(regex) + " on " + printable(s) + ": java says " + expected + ", "
              + matcher.describe());
        }
        checked++;
        if (expected) matched++;
      }
    }
    System.out.printf("regex differential: %d patterns, %d strings checked, %d matched; skipped %d over the size cap"
        + " and %d with a repeat Java ends at an empty iteration%n", count - tooLarge - emptyIterations, checked,
        matched, tooLarge, emptyIterations);
    assertTrue(tooLarge + emptyIterations < count / 50, "too many patterns skipped");
    assertTrue(matched > checked / 10 && matched < checked * 9 / 10, matched + " of " + checked + " matched");
  }

  /**
   * Random strings of metacharacters, escapes and letters, kept when the JDK compiles them: odd syntax the pattern
   * generator never writes (dangling brackets, flags in odd places, escapes next to quantifiers) must either be
   * reported unsupported or match exactly as in Java.
   */
  @Test
  void agreesWithJavaRegexOnRandomSyntax() {
    int[] pieces =
        "()[]{}^$.|?*+\\-&:!=<>,0123aAbBdDsSwWhHvVpPQEkxucNzZ#\u00E9\n\r \uD83D\uDE00".codePoints().toArray();
    Random random = new Random(3);
    int valid = 0;
    int supported = 0;
    for (int i = 0; i < 25_000; i++) {
      StringBuilder b = new StringBuilder();
      int length = 1 + random.nextInt(8);
      for (int j = 0; j < length; j++) b.appendCodePoint(pieces[random.nextInt(pieces.length)]);
      String regex = b.toString();
      Pattern java;
      try {
        java = Pattern.compile(regex);
      } catch (PatternSyntaxException e) {
        assertEquals(new CompiledPattern.Invalid(e.getMessage()), RegexCompiler.compile(regex));
        continue;
      }
      valid++;
      StringMatcher matcher = RegexCompiler.compile(regex).deviceMatcher().orElse(null);
      if (matcher == null) continue;
      supported++;
      int[] alphabet = (regex + "ab\n\r").codePoints().toArray();
      for (int j = 0; j < 20; j++) {
        StringBuilder s = new StringBuilder();
        int stringLength = random.nextInt(6);
        for (int k = 0; k < stringLength; k++) s.appendCodePoint(alphabet[random.nextInt(alphabet.length)]);
        String str = s.toString();
        assertEquals(java.matcher(str).find(), matches(matcher, str), printable(regex) + " on " + printable(str));
      }
    }
    System.out.printf("regex syntax fuzz: %d valid patterns, %d compiled and checked%n", valid, supported);
    assertTrue(supported > valid * 9 / 10);
  }

  @Test
  void generatedPatternsAreValid() {
    RandomRegex patterns = new RandomRegex(new Random(7), RandomRegex.ALPHABET);
    for (int i = 0; i < 1000; i++) assertEquals(Pattern.class, Pattern.compile(patterns.next()).getClass());
  }

  /** Mostly the pattern's own characters, sometimes a line terminator pair or an empty string. */
  static String randomString(Random random, List<Integer> used, int[] alphabet) {
    StringBuilder b = new StringBuilder();
    int length = random.nextInt(9);
    for (int i = 0; i < length; i++) {
      boolean fromPattern = !used.isEmpty() && random.nextInt(3) > 0;
      b.appendCodePoint(fromPattern ? used.get(random.nextInt(used.size()))
          : alphabet[random.nextInt(alphabet.length)]);
      if (random.nextInt(12) == 0) b.append("\r\n");
    }
    return b.toString();
  }
}
