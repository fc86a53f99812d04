package io.sparkwarp.strings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.strings.StringMatcher;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Character sets as byte automata, checked on every code point's UTF-8 encoding. */
class Utf8SequencesTest {
  /** A matcher for strings of exactly one character from {@code set}. */
  private static StringMatcher oneOf(CodePointSet set) {
    ByteNfa nfa = new ByteNfa(10_000, "test");
    int start = nfa.newNode();
    nfa.setStart(start);
    nfa.setAccept(nfa.codePoint(start, set));
    return nfa.toMatcher("test").deviceMatcher().orElseThrow();
  }

  private static void assertExactlyEncodes(CodePointSet set) {
    StringMatcher m = oneOf(set);
    for (int cp = 0; cp <= Character.MAX_CODE_POINT; cp++) {
      if (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE) continue;
      byte[] utf8 = Character.toString(cp).getBytes(StandardCharsets.UTF_8);
      if (m.matches(utf8, 0, utf8.length) != set.contains(cp)) {
        throw new AssertionError(set + " at U+" + Integer.toHexString(cp) + ": expected " + set.contains(cp));
      }
    }
  }

  @Test
  void everyCodePointOfSeveralSets() {
    assertExactlyEncodes(CodePointSet.ALL);
    assertExactlyEncodes(CodePointSet.of('a').complement());
    assertExactlyEncodes(CodePointSet.ofAll('\n', '\r', 0x85, 0x2028, 0x2029).complement());
    assertExactlyEncodes(CodePointSet.range(0x7F, 0x800).union(CodePointSet.range(0xD000, 0xE100)));
    assertExactlyEncodes(CodePointSet.range(0xFFFF, 0x10000).union(CodePointSet.of(0x10FFFF)));
    Random random = new Random(11);
    for (int i = 0; i < 3; i++) {
      CodePointSet set = CodePointSet.EMPTY;
      for (int r = 0; r < 6; r++) {
        int lo = random.nextInt(Character.MAX_CODE_POINT >> (random.nextInt(4) * 5));
        set = set.union(CodePointSet.range(lo, Math.min(Character.MAX_CODE_POINT, lo + random.nextInt(5000))));
      }
      assertExactlyEncodes(set);
    }
  }

  @Test
  void anyCharacterIsOneLeadByteAndItsContinuations() {
    List<Utf8Sequences.Sequence> all = Utf8Sequences.of(CodePointSet.ALL);
    assertEquals(4, all.size());
    assertEquals(List.of(0xF0, 0x80, 0x80, 0x80), List.of(all.get(3).lo()[0], all.get(3).lo()[1], all.get(3).lo()[2],
        all.get(3).lo()[3]));
  }

  @Test
  void codePointSets() {
    CodePointSet s = CodePointSet.range('a', 'f').union(CodePointSet.range('d', 'k')).union(CodePointSet.of('l'));
    assertEquals(CodePointSet.range('a', 'l'), s);
    assertTrue(s.complement().complement().equals(s));
    assertEquals(CodePointSet.range('a', 'c'), s.minus(CodePointSet.range('d', 'z')));
    assertEquals(CodePointSet.range('Z', 'a').union(CodePointSet.ofAll('A', 'z')),
        CodePointSet.range('Z', 'a').withAsciiCaseVariants());
    assertFalse(s.contains('m'));
    assertTrue(CodePointSet.ALL.containsAll(s));
  }
}
