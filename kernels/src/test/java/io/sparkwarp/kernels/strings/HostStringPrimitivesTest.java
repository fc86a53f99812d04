package io.sparkwarp.kernels.strings;

import static io.sparkwarp.kernels.strings.StringTesting.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.testing.BackendTestBase;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Test;

/**
 * The host reference string primitives: both pivoted layouts byte for byte against a computation from the
 * destination side, and matching through every layout, with and without refill, equal to the matchers' own
 * definition on awkward columns of 0 to 1500 rows, for hand-picked, KMP-adversarial and random segment matchers and
 * random automata (largest tables, sink start states included). Matching through a layout must read the layout,
 * which a column whose bytes differ from the layout's shows. Every run draws fresh random input; failures name the
 * seed.
 */
class HostStringPrimitivesTest extends BackendTestBase {
  static final int[] SIZES = {0, 1, 31, 32, 33, 1000, 1500};

  private final long seed = new Random().nextLong();
  private final Random rnd = new Random(seed);

  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  @Test
  void pivotLayoutsAreByteExact() {
    for (int n : SIZES) {
      for (int longest : new int[] {40, 3000}) {
        try (VarCharVector v = StringTesting.column(n, 20, longest, rnd, pageable);
            DeviceColumn c = ArrowUpload.upload(backend, v, stream);
            PivotedStrings pivoted = backend.strings().pivot(c, StringLayout.PIVOTED, stream);
            PivotedStrings self = backend.strings().pivot(c, StringLayout.SELF_PIVOTED, stream)) {
          String what = n + " rows up to " + longest + " bytes, seed " + seed;
          assertEquals(n, pivoted.rowCount());
          StringTesting.Layout.download(backend, pivoted, stream)
              .assertEqualTo(StringTesting.expectedPivoted(v), "pivoted, " + what);
          StringTesting.Layout.download(backend, self, stream)
              .assertEqualTo(StringTesting.expectedSelfPivoted(v), "self-pivoted, " + what);
        }
      }
    }
  }

  @Test
  void matchEqualsTheMatcherOnEveryLayout() {
    for (int n : SIZES) {
      try (VarCharVector v = StringTesting.column(n, 24, 600, rnd, pageable);
          DeviceColumn c = ArrowUpload.upload(backend, v, stream);
          PivotedStrings pivoted = backend.strings().pivot(c, StringLayout.PIVOTED, stream);
          PivotedStrings self = backend.strings().pivot(c, StringLayout.SELF_PIVOTED, stream)) {
        boolean[] valid = new boolean[n];
        for (int i = 0; i < n; i++) valid[i] = !v.isNull(i);
        for (StringMatcher matcher : matchers()) {
          boolean[] expected = StringTesting.expected(v, matcher);
          for (PivotedStrings layout : Arrays.asList(null, pivoted, self)) {
            if (layout == self && matcher instanceof DfaMatcher) continue;
            for (boolean refill : new boolean[] {false, true}) {
              try (MatchResult r = backend.strings().match(c, layout, matcher, refill, stream)) {
                String what = matcher.describe() + " over " + r.layout() + (refill ? " with refill, " : ", ") + n
                    + " rows, seed " + seed;
                assertEquals(layout == null ? StringLayout.PLAIN : layout.layout(), r.layout());
                assertEquals(refill, r.refill());
                assertEquals(DeviceType.BOOLEAN, r.matches().type());
                assertEquals(n, r.matches().rowCount());
                boolean[] actual = StringTesting.bits(backend, r.matches().data(), n, stream);
                assertArrayEquals(expected, actual, what + ": first difference "
                    + StringTesting.firstDifference(expected, actual, v));
                assertArrayEquals(valid, StringTesting.bits(backend, r.matches().validity(), n, stream),
                    "validity, " + what);
                assertEquals(0, r.activeLanes());
                assertEquals(0, r.warpIterations());
                assertTrue(Double.isNaN(r.laneUtilisation()));
              }
            }
          }
        }
      }
    }
  }

  /**
   * The random columns give every hand-picked matcher both outcomes: at a fixed seed, since a random one leaves a
   * rare pattern (prefix 'aa', 'aaab', 'x', suffix 'b') without a matching row now and then (in CI: seed
   * 1341733144401785003).
   */
  @Test
  void columnsExerciseTheMatchers() {
    long seed = 2026;
    try (VarCharVector v = StringTesting.column(1500, 24, 600, new Random(seed), pageable)) {
      for (SegmentMatcher m : StringTesting.handPicked()) {
        boolean[] e = StringTesting.expected(v, m);
        int hits = 0;
        for (boolean b : e) hits += b ? 1 : 0;
        boolean matchesAll = !m.exact() && m.minLength() == 0;
        if (!matchesAll) assertTrue(hits < 1500 - 75, m.describe() + " rejects some rows, nulls aside, seed " + seed);
        if (!m.exact() || m.prefix().length == 0) {
          assertTrue(hits > 0, m.describe() + " matches some row, seed " + seed);
        }
      }
    }
  }

  /** Hand-picked and random segment matchers, random automata of several shapes, and a search automaton. */
  private List<StringMatcher> matchers() {
    // {64, 256}: the largest table, 16384 entries
    return StringTesting.matcherMix(rnd, 12, new int[] {1, 1}, new int[] {3, 2}, new int[] {40, 7},
        new int[] {64, 256}, new int[] {16_384, 1});
  }

  @Test
  void sinkStartStatesDecideWithoutReading() {
    byte[] classOf = new byte[256];
    for (boolean accepting : new boolean[] {false, true}) {
      DfaMatcher sink = new DfaMatcher(1, 1, classOf, new int[] {0}, 0, new boolean[] {accepting}, "sink");
      try (VarCharVector v = StringTesting.column(100, 10, 10, rnd, pageable);
          DeviceColumn c = ArrowUpload.upload(backend, v, stream);
          MatchResult r = backend.strings().match(c, null, sink, true, stream)) {
        boolean[] actual = StringTesting.bits(backend, r.matches().data(), 100, stream);
        assertArrayEquals(StringTesting.expected(v, sink), actual);
      }
    }
  }

  @Test
  void matchingThroughALayoutReadsTheLayout() {
    try (VarCharVector a = StringTesting.column(500, 30, 300, rnd, pageable);
        VarCharVector b = swapped(a);
        DeviceColumn ca = ArrowUpload.upload(backend, a, stream);
        DeviceColumn cb = ArrowUpload.upload(backend, b, stream)) {
      SegmentMatcher matcher = SegmentMatcher.contains(utf8("aab"));
      boolean[] expectedA = StringTesting.expected(a, matcher);
      assertTrue(!Arrays.equals(expectedA, StringTesting.expected(b, matcher)), "the swap changes answers");
      for (StringLayout layout : new StringLayout[] {StringLayout.PIVOTED, StringLayout.SELF_PIVOTED}) {
        try (PivotedStrings pivotedA = backend.strings().pivot(ca, layout, stream);
            MatchResult r = backend.strings().match(cb, pivotedA, matcher, false, stream)) {
          assertArrayEquals(expectedA, StringTesting.bits(backend, r.matches().data(), 500, stream), layout.name());
        }
      }
    }
  }

  /** The same strings with 'a' and 'b' swapped: equal lengths and nulls, other bytes. */
  private VarCharVector swapped(VarCharVector a) {
    VarCharVector b = new VarCharVector("b", pageable);
    b.allocateNew();
    for (int i = 0; i < a.getValueCount(); i++) {
      if (a.isNull(i)) {
        b.setNull(i);
        continue;
      }
      byte[] s = StringTesting.rawBytes(a, i);
      for (int k = 0; k < s.length; k++) s[k] = s[k] == 'a' ? (byte) 'b' : s[k] == 'b' ? (byte) 'a' : s[k];
      b.setSafe(i, s);
    }
    b.setValueCount(a.getValueCount());
    return b;
  }

  @Test
  void refusals() {
    try (VarCharVector v = StringTesting.column(40, 10, 10, rnd, pageable);
        VarCharVector shorter = StringTesting.column(39, 10, 10, rnd, pageable);
        IntVector ints = new IntVector("i", pageable)) {
      ints.allocateNew(3);
      ints.setValueCount(3);
      try (DeviceColumn c = ArrowUpload.upload(backend, v, stream);
          DeviceColumn cs = ArrowUpload.upload(backend, shorter, stream);
          DeviceColumn ci = ArrowUpload.upload(backend, ints, stream);
          PivotedStrings self = backend.strings().pivot(c, StringLayout.SELF_PIVOTED, stream);
          PivotedStrings pivoted = backend.strings().pivot(c, StringLayout.PIVOTED, stream)) {
        StringPrimitives s = backend.strings();
        DfaMatcher dfa = StringTesting.containsDfa(utf8("ab"));
        SegmentMatcher segments = SegmentMatcher.contains(utf8("ab"));
        assertThrows(IllegalArgumentException.class, () -> s.match(c, self, dfa, false, stream));
        assertThrows(IllegalArgumentException.class, () -> s.match(cs, pivoted, segments, false, stream));
        assertThrows(IllegalArgumentException.class, () -> s.match(ci, null, segments, false, stream));
        assertThrows(IllegalArgumentException.class, () -> s.pivot(c, StringLayout.PLAIN, stream));
        assertThrows(IllegalArgumentException.class, () -> s.pivot(ci, StringLayout.PIVOTED, stream));
      }
    }
  }
}
