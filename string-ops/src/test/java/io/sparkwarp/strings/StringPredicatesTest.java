package io.sparkwarp.strings;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.strings.MatchResult;
import io.sparkwarp.kernels.strings.SegmentMatcher;
import io.sparkwarp.kernels.strings.StringLayout;
import io.sparkwarp.kernels.strings.StringMatcher;
import io.sparkwarp.kernels.strings.StringTesting;
import io.sparkwarp.kernels.testing.BackendTestBase;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;

/** The layout rule, and every predicate of a batch evaluated through the layouts it picks (host backend). */
class StringPredicatesTest extends BackendTestBase {
  private final Random rnd = new Random(42);

  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  @Test
  void layoutRule() {
    StringMatcher kmp = SegmentMatcher.of(StringTesting.utf8("a"), List.of(StringTesting.utf8("x")), new byte[0]);
    StringMatcher dfa = MultiPattern.anyOf(List.of("%a%", "%b%")).deviceMatcher().orElseThrow();
    StringMatcher contains = SegmentMatcher.contains(StringTesting.utf8("x"));
    StringMatcher segments =
        SegmentMatcher.of(new byte[0], List.of(StringTesting.utf8("x"), StringTesting.utf8("y")), new byte[0]);
    for (StringMatcher unanchored : List.of(contains, segments)) {
      assertTrue(LayoutPolicy.scansPlain(unanchored, 30));
      assertEquals(StringLayout.PLAIN, LayoutPolicy.choose(LayoutMode.AUTO, unanchored, 1000, 30_000, 5),
          "the contains scan reads plain strings");
      assertEquals(StringLayout.PIVOTED, LayoutPolicy.choose(LayoutMode.PIVOTED, unanchored, 1000, 30_000, 1),
          "forced layouts still apply");
    }
    assertEquals(StringLayout.PLAIN, LayoutPolicy.choose(LayoutMode.AUTO, contains, 1000, 4_000_000, 2));
    assertFalse(LayoutPolicy.scansPlain(segments, 4000), "several segments over long strings: self-pivoted");
    assertEquals(StringLayout.SELF_PIVOTED, LayoutPolicy.choose(LayoutMode.AUTO, segments, 1000, 4_000_000, 2));
    assertFalse(LayoutPolicy.scansPlain(kmp, 30));
    assertFalse(LayoutPolicy.scansPlain(dfa, 30));
    assertEquals(StringLayout.PLAIN, LayoutPolicy.choose(LayoutMode.AUTO, kmp, 1000, 30_000, 1));
    assertEquals(StringLayout.PLAIN, LayoutPolicy.choose(LayoutMode.AUTO, kmp, 1000, 8_000, 5), "short strings");
    assertEquals(StringLayout.PIVOTED, LayoutPolicy.choose(LayoutMode.AUTO, kmp, 1000, 30_000, 3));
    assertEquals(StringLayout.SELF_PIVOTED, LayoutPolicy.choose(LayoutMode.AUTO, kmp, 1000, 4_000_000, 2));
    assertEquals(StringLayout.PLAIN, LayoutPolicy.choose(LayoutMode.AUTO, dfa, 1000, 4_000_000, 2));
    assertEquals(StringLayout.PIVOTED, LayoutPolicy.choose(LayoutMode.SELF_PIVOTED, dfa, 1000, 30_000, 1),
        "an automaton cannot be self-pivoted");
    assertEquals(StringLayout.PLAIN, LayoutPolicy.choose(LayoutMode.AUTO, kmp, 0, 0, 4));
  }

  @Test
  void everyPredicateOfABatchInEveryMode() {
    List<StringMatcher> matchers = List.of(SegmentMatcher.contains(StringTesting.utf8("ab")),
        LikeCompiler.compile("%a_c%").deviceMatcher().orElseThrow(),
        SegmentMatcher.startsWith(StringTesting.utf8("a")),
        RegexCompiler.compile("b+$").deviceMatcher().orElseThrow());
    for (int longest : new int[] {40, 3000}) {
      try (VarCharVector a = StringTesting.column(500, 30, longest, rnd, pageable);
          VarCharVector b = StringTesting.column(500, 30, longest, rnd, pageable);
          DeviceBatch batch = new DeviceBatch(List.of(ArrowUpload.upload(backend, a, stream),
              ArrowUpload.upload(backend, b, stream)), 500)) {
        List<ColumnMatch> matches = new ArrayList<>();
        for (StringMatcher m : matchers) {
          matches.add(new ColumnMatch(0, m));
          matches.add(new ColumnMatch(1, m));
        }
        for (LayoutMode mode : LayoutMode.values()) {
          List<MatchResult> results = StringPredicates.evaluate(backend, batch, matches,
              new MatchOptions(mode, mode.ordinal() % 2 == 0), stream);
          try {
            for (int i = 0; i < matches.size(); i++) {
              ColumnMatch m = matches.get(i);
              DeviceColumn got = results.get(i).matches();
              assertArrayEquals(StringTesting.expected(m.column() == 0 ? a : b, m.matcher()),
                  StringTesting.bits(backend, got.data(), 500, stream), mode + " " + m.matcher());
            }
          } finally {
            results.forEach(MatchResult::close);
          }
        }
      }
    }
  }
}
