package io.sparkwarp.strings;

import io.sparkwarp.kernels.strings.DfaMatcher;
import io.sparkwarp.kernels.strings.SegmentMatcher;
import io.sparkwarp.kernels.strings.StringLayout;
import io.sparkwarp.kernels.strings.StringMatcher;

/**
 * Picks the layout a matcher reads a batch's string column in, from the column's average string length (known
 * without touching the device: the column's byte count over its rows) and how many predicates read the column.
 * A pivoted copy is built per batch, so it must pay for itself. Measured on the H200 (docs/PERFORMANCE.md, "String
 * layouts"): building the pivoted layout runs at about 1,000 GB/s of strings, while matching on it instead of the
 * plain layout saves 10 to 25% of a match that runs at 300 to 800 GB/s, i.e. about a third of the build per
 * predicate; the self-pivoted layout of long strings saves about 60% of its build per segment predicate.
 *
 * <ul>
 *   <li>PLAIN always for {@code LIKE '%x%'} ({@link #scansPlain}), which the CUDA backend answers by streaming
 *       the plain bytes (4 to 5 times the pivoted lane matcher's throughput on TPC-H comments, 2.7 times the
 *       self-pivoted one on strings of 3 to 5 KB), and for the other unanchored segment matchers ({@code
 *       '%x%y%'}) over strings shorter than {@link #SELF_PIVOT_MIN_AVERAGE}, where that scan of the longest segment
 *       filters the rows the lane matcher reads (1.3 to 1.6 times the pivoted lane matcher); predicates on plain
 *       strings by this rule do not count towards the predicates below;
 *   <li>PLAIN by default, and always for short strings (average below {@link #PIVOT_MIN_AVERAGE} bytes, one or two
 *       pieces per string: lanes are nearly in lockstep anyway);
 *   <li>PIVOTED when at least {@link #PIVOT_MIN_PREDICATES} predicates read the column, sharing one copy;
 *   <li>SELF_PIVOTED for segment matchers over long strings (average from {@link #SELF_PIVOT_MIN_AVERAGE} bytes)
 *       read by at least {@link #SELF_PIVOT_MIN_PREDICATES} predicates (an automaton cannot be split across lanes,
 *       so DFA matchers take the pivoted layout there).
 * </ul>
 */
public final class LayoutPolicy {
  /** Average string bytes below which pivoting never pays. */
  public static final long PIVOT_MIN_AVERAGE = 16;
  /** Predicates on one column from which one pivoted copy pays for itself. */
  public static final int PIVOT_MIN_PREDICATES = 3;
  /** Average string bytes from which a warp per string beats a lane per string. */
  public static final long SELF_PIVOT_MIN_AVERAGE = 1024;
  /** Segment predicates on one long-string column from which a self-pivoted copy pays for itself. */
  public static final int SELF_PIVOT_MIN_PREDICATES = 2;

  private LayoutPolicy() {}

  /**
   * Whether {@code matcher} reads plain strings of {@code average} bytes whatever the other predicates on its column:
   * an unanchored segment matcher, scanned for (one of) its segments, unless several segments over long strings,
   * where the self-pivoted lane matcher measured 10% faster than the scan and the lane matcher behind it.
   */
  public static boolean scansPlain(StringMatcher matcher, long average) {
    return matcher instanceof SegmentMatcher s && s.unanchored()
        && (s.segmentCount() == 1 || average < SELF_PIVOT_MIN_AVERAGE);
  }

  /**
   * The layout for {@code matcher} over a column of {@code rows} rows holding {@code bytes} string bytes, which
   * {@code predicates} predicates of the batch read that would share a pivoted copy (those not {@link #scansPlain}).
   */
  public static StringLayout choose(LayoutMode mode, StringMatcher matcher, int rows, long bytes, int predicates) {
    boolean dfa = matcher instanceof DfaMatcher;
    if (mode.forced() != null) {
      // a forced self-pivot cannot carry an automaton; it reads the pivoted layout instead
      return dfa && mode.forced() == StringLayout.SELF_PIVOTED ? StringLayout.PIVOTED : mode.forced();
    }
    if (rows == 0) return StringLayout.PLAIN;
    long average = bytes / rows;
    if (scansPlain(matcher, average)) return StringLayout.PLAIN;
    if (average < PIVOT_MIN_AVERAGE) return StringLayout.PLAIN;
    if (!dfa && average >= SELF_PIVOT_MIN_AVERAGE && predicates >= SELF_PIVOT_MIN_PREDICATES) {
      return StringLayout.SELF_PIVOTED;
    }
    return predicates >= PIVOT_MIN_PREDICATES ? StringLayout.PIVOTED : StringLayout.PLAIN;
  }
}
