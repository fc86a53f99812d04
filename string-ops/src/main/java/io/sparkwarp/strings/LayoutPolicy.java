package io.sparkwarp.strings;

import io.sparkwarp.kernels.strings.DfaMatcher;
import io.sparkwarp.kernels.strings.StringLayout;
import io.sparkwarp.kernels.strings.StringMatcher;

/**
 * Picks the layout a matcher reads a batch's string column in, from the column's average string length (known
 * without touching the device: the column's byte count over its rows). The thresholds come from the measurements in
 * docs/PERFORMANCE.md ("String layouts"):
 *
 * <ul>
 *   <li>short strings (average below {@link #PIVOT_MIN_AVERAGE} bytes) stay PLAIN: a lane reads its whole string in
 *       one or two 8-byte pieces, so lanes are nearly in lockstep anyway and building a pivoted copy costs more
 *       than it saves;
 *   <li>long strings (average from {@link #SELF_PIVOT_MIN_AVERAGE} bytes) are SELF_PIVOTED for segment matchers:
 *       one warp per string keeps 32 lanes busy however lengths vary (an automaton cannot be split across lanes, so
 *       DFA matchers stay PIVOTED there);
 *   <li>everything between is PIVOTED: lanes of a warp read 256 contiguous bytes per 8-byte step.
 * </ul>
 */
public final class LayoutPolicy {
  /** Average string bytes from which pivoting pays for its copy. */
  public static final long PIVOT_MIN_AVERAGE = 16;
  /** Average string bytes from which a warp per string beats a lane per string. */
  public static final long SELF_PIVOT_MIN_AVERAGE = 1024;

  private LayoutPolicy() {}

  /** The layout for {@code matcher} over a column of {@code rows} rows holding {@code bytes} string bytes. */
  public static StringLayout choose(LayoutMode mode, StringMatcher matcher, int rows, long bytes) {
    boolean dfa = matcher instanceof DfaMatcher;
    if (mode.forced() != null) {
      // a forced self-pivot cannot carry an automaton; it reads the pivoted layout instead
      return dfa && mode.forced() == StringLayout.SELF_PIVOTED ? StringLayout.PIVOTED : mode.forced();
    }
    if (rows == 0) return StringLayout.PLAIN;
    long average = bytes / rows;
    if (average < PIVOT_MIN_AVERAGE) return StringLayout.PLAIN;
    if (average >= SELF_PIVOT_MIN_AVERAGE && !dfa) return StringLayout.SELF_PIVOTED;
    return StringLayout.PIVOTED;
  }
}
