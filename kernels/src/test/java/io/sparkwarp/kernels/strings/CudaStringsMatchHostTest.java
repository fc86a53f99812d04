package io.sparkwarp.kernels.strings;

import static io.sparkwarp.kernels.strings.StringTesting.utf8;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.testing.CudaVsHostTestBase;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every string kernel against the host reference on fresh random input: both pivot layouts byte for byte, and every
 * layout x matcher kind x refill variant with the same answers (values and validity) as the host, which CI checks
 * against the matchers' definition. Sizes around warp boundaries up to 1 M rows, strings of tens of KB for the
 * self-pivoted warp-per-row kernels with patterns planted across segment boundaries, the largest DFA tables, and a
 * segment program too large for the default 48 KiB of shared memory.
 */
@Tag("gpu")
class CudaStringsMatchHostTest extends CudaVsHostTestBase {
  static final int[] SIZES = {0, 1, 31, 32, 33, 4097, 1_000_000};
  static final int[] BOUNDARY_LENGTHS = {7, 8, 9, 255, 256, 257, 263, 511, 512, 513, 2048, 4099, 8191, 8192, 8193,
      33_000};

  /** The same column on both backends, with both layouts built by each. */
  private final class Both implements AutoCloseable {
    final VarCharVector vector;
    final DeviceColumn c;
    final DeviceColumn h;
    final PivotedStrings cPivoted;
    final PivotedStrings hPivoted;
    final PivotedStrings cSelf;
    final PivotedStrings hSelf;

    Both(VarCharVector vector, DeviceStream cs, DeviceStream hs) {
      this.vector = vector;
      c = ArrowUpload.upload(cuda, vector, cs);
      h = ArrowUpload.upload(host, vector, hs);
      cPivoted = cuda.strings().pivot(c, StringLayout.PIVOTED, cs);
      hPivoted = host.strings().pivot(h, StringLayout.PIVOTED, hs);
      cSelf = cuda.strings().pivot(c, StringLayout.SELF_PIVOTED, cs);
      hSelf = host.strings().pivot(h, StringLayout.SELF_PIVOTED, hs);
    }

    @Override
    public void close() {
      cSelf.close();
      hSelf.close();
      cPivoted.close();
      hPivoted.close();
      c.close();
      h.close();
      vector.close();
    }
  }

  @Test
  void pivotLayoutsMatchTheHost() {
    try (DeviceStream cs = cuda.newStream(); DeviceStream hs = host.newStream()) {
      for (int n : SIZES) {
        try (Both b = new Both(StringTesting.column(n, 20, 400, rnd, allocator), cs, hs)) {
          assertLayoutsEqual(b, cs, hs, n + " rows");
        }
      }
      try (Both b = new Both(StringTesting.column(300, 2000, 40_000, rnd, allocator), cs, hs)) {
        assertLayoutsEqual(b, cs, hs, "300 long rows");
      }
    }
  }

  private void assertLayoutsEqual(Both b, DeviceStream cs, DeviceStream hs, String what) {
    StringTesting.Layout.download(cuda, b.cPivoted, cs)
        .assertEqualTo(StringTesting.Layout.download(host, b.hPivoted, hs), "pivoted, " + what);
    StringTesting.Layout.download(cuda, b.cSelf, cs)
        .assertEqualTo(StringTesting.Layout.download(host, b.hSelf, hs), "self-pivoted, " + what);
  }

  @Test
  void everyMatchKernelMatchesTheHost() {
    try (DeviceStream cs = cuda.newStream(); DeviceStream hs = host.newStream()) {
      for (int n : SIZES) {
        List<StringMatcher> matchers = n > 100_000 ? fewMatchers() : manyMatchers();
        try (Both b = new Both(StringTesting.column(n, 24, 1000, rnd, allocator), cs, hs)) {
          for (StringMatcher m : matchers) assertEveryVariantMatches(b, m, cs, hs, n + " rows");
        }
      }
    }
  }

  @Test
  void longStringsAcrossSegmentBoundaries() {
    List<StringMatcher> matchers = new ArrayList<>(StringTesting.handPicked());
    matchers.add(SegmentMatcher.contains(utf8("aaab")));
    matchers.add(SegmentMatcher.of(new byte[0], List.of(utf8("aaab"), utf8("ba"), utf8("aaab")), new byte[0]));
    matchers.add(SegmentMatcher.of(utf8("ab"), List.of(utf8("aaaaaaab")), utf8("b")));
    matchers.add(StringTesting.containsDfa(utf8("aaab")));
    try (DeviceStream cs = cuda.newStream(); DeviceStream hs = host.newStream();
        Both b = new Both(StringTesting.boundaryColumn(BOUNDARY_LENGTHS, rnd, allocator), cs, hs)) {
      for (StringMatcher m : matchers) assertEveryVariantMatches(b, m, cs, hs, "planted at segment boundaries");
    }
    try (DeviceStream cs = cuda.newStream(); DeviceStream hs = host.newStream();
        Both b = new Both(StringTesting.column(400, 3000, 60_000, rnd, allocator), cs, hs)) {
      for (StringMatcher m : matchers) assertEveryVariantMatches(b, m, cs, hs, "400 long rows");
    }
  }

  @Test
  void largestTables() {
    List<StringMatcher> matchers = List.of(StringTesting.randomDfa(rnd, 64, 256),
        StringTesting.randomDfa(rnd, 16_384, 1), StringTesting.randomDfa(rnd, 2048, 8),
        SegmentMatcher.contains(StringTesting.text(3000, rnd)),
        // 12 000 pattern bytes: a program of about 60 KB, past the 48 KiB a launch gets without opting in
        SegmentMatcher.of(utf8("a"), List.of(StringTesting.text(6000, rnd), StringTesting.text(6000, rnd)),
            new byte[0]));
    try (DeviceStream cs = cuda.newStream(); DeviceStream hs = host.newStream();
        Both b = new Both(StringTesting.column(5000, 30, 20_000, rnd, allocator), cs, hs)) {
      for (StringMatcher m : matchers) assertEveryVariantMatches(b, m, cs, hs, "large tables");
    }
  }

  @Test
  void refusesWhatTheHostRefuses() {
    try (DeviceStream cs = cuda.newStream(); DeviceStream hs = host.newStream();
        Both b = new Both(StringTesting.column(50, 10, 10, rnd, allocator), cs, hs)) {
      DfaMatcher dfa = StringTesting.containsDfa(utf8("ab"));
      assertThrows(IllegalArgumentException.class, () -> cuda.strings().match(b.c, b.cSelf, dfa, true, cs));
      assertThrows(IllegalArgumentException.class, () -> cuda.strings().pivot(b.c, StringLayout.PLAIN, cs));
    }
  }

  private List<StringMatcher> manyMatchers() {
    List<StringMatcher> out = StringTesting.matcherMix(rnd, 12, new int[] {1, 1}, new int[] {5, 3},
        new int[] {40, 7}, new int[] {64, 256});
    out.add(StringTesting.containsDfa(utf8("a pattern longer than eight bytes")));
    return out;
  }

  private List<StringMatcher> fewMatchers() {
    return List.of(SegmentMatcher.startsWith(utf8("aab")), SegmentMatcher.endsWith(utf8("日本")),
        SegmentMatcher.contains(utf8("aaaaaaab")),
        SegmentMatcher.of(new byte[0], List.of(utf8("ab"), utf8("ab"), utf8("ba")), new byte[0]),
        SegmentMatcher.equalTo(utf8("abab")), StringTesting.randomSegments(rnd), StringTesting.randomDfa(rnd, 40, 7),
        StringTesting.containsDfa(utf8("aaab")));
  }

  /** Host answers for a layout (refill changes nothing there) against both CUDA variants and the definition. */
  private void assertEveryVariantMatches(Both b, StringMatcher m, DeviceStream cs, DeviceStream hs, String what) {
    int n = b.vector.getValueCount();
    boolean[] expected = StringTesting.expected(b.vector, m);
    boolean[] valid = new boolean[n];
    for (int i = 0; i < n; i++) valid[i] = !b.vector.isNull(i);
    PivotedStrings[][] layouts = {{null, null}, {b.cPivoted, b.hPivoted}, {b.cSelf, b.hSelf}};
    for (PivotedStrings[] layout : layouts) {
      if (layout[0] == b.cSelf && m instanceof DfaMatcher) continue;
      boolean[] hostAnswers;
      try (MatchResult h = host.strings().match(b.h, layout[1], m, false, hs)) {
        hostAnswers = StringTesting.bits(host, h.matches().data(), n, hs);
      }
      assertArrayEquals(expected, hostAnswers, "host, " + m.describe() + ", " + what);
      for (boolean refill : new boolean[] {false, true}) {
        try (MatchResult c = cuda.strings().match(b.c, layout[0], m, refill, cs)) {
          String label = m.describe() + " over " + c.layout() + (refill ? " with refill, " : ", ") + what;
          boolean[] actual = StringTesting.bits(cuda, c.matches().data(), n, cs);
          assertArrayEquals(hostAnswers, actual, label + ": first difference "
              + StringTesting.firstDifference(hostAnswers, actual, b.vector));
          assertArrayEquals(valid, StringTesting.bits(cuda, c.matches().validity(), n, cs), "validity, " + label);
          assertTrue(c.activeLanes() <= 32 * c.warpIterations(), "lane counters, " + label);
          // the contains scan that answers one unanchored segment on plain strings refills from its candidate queue
          boolean scan = layout[0] == null && m instanceof SegmentMatcher s && s.unanchored()
              && s.segmentCount() == 1;
          assertEquals(refill || scan, c.refill(), "refill, " + label);
        }
      }
    }
  }
}
