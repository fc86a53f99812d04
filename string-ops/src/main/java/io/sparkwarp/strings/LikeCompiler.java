package io.sparkwarp.strings;

import io.sparkwarp.kernels.strings.SegmentMatcher;
import java.util.List;

/**
 * Compiles Spark's {@code Like(str, pattern, escapeChar)} with a literal pattern (UTF8_BINARY collation). A pattern
 * without {@code _} becomes a {@link SegmentMatcher}: the run before the first {@code %} is the prefix, the run after
 * the last one the suffix, the runs between are segments found in order; without {@code %} it is equality. A pattern
 * with {@code _} becomes a whole-string DFA over UTF-8 bytes, {@code _} being the automaton of one code point.
 */
public final class LikeCompiler {
  /** Most automaton nodes a pattern may need. */
  static final int MAX_NFA_NODES = 20_000;

  private LikeCompiler() {}

  /** {@code str LIKE pattern} with Spark's default escape character, the backslash. */
  public static CompiledPattern compile(String pattern) {
    return compile(pattern, '\\');
  }

  /** {@code str LIKE pattern ESCAPE escapeChar}. */
  public static CompiledPattern compile(String pattern, char escapeChar) {
    try {
      LikePattern like = LikePattern.parse(pattern, escapeChar);
      if (!like.hasAnyOne()) return new CompiledPattern.Supported(segments(like));
      ByteNfa nfa = new ByteNfa(MAX_NFA_NODES, "like pattern");
      int start = nfa.newNode();
      nfa.setStart(start);
      nfa.setAccept(like.build(nfa, start));
      return nfa.toMatcher("like " + like.sql());
    } catch (InvalidPatternException e) {
      return new CompiledPattern.Invalid(e.getMessage());
    } catch (UnsupportedPatternException e) {
      return new CompiledPattern.Unsupported(e.getMessage());
    }
  }

  private static SegmentMatcher segments(LikePattern like) {
    List<byte[]> runs = like.runs();
    if (runs.size() == 1) return SegmentMatcher.equalTo(runs.get(0));
    return SegmentMatcher.of(runs.get(0), runs.subList(1, runs.size() - 1), runs.get(runs.size() - 1));
  }
}
