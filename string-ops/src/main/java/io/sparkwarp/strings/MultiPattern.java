package io.sparkwarp.strings;

import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/**
 * Several LIKE patterns on one column joined by OR, as one device matcher: a single pattern compiles alone
 * ({@link LikeCompiler}); when every pattern is {@code %literal%} the union is {@link AhoCorasick}; otherwise the
 * patterns' whole-string automata are joined into one NFA and determinised. An invalid pattern makes the whole
 * union invalid (Spark raises its error for it).
 */
public final class MultiPattern {
  private MultiPattern() {}

  /** {@code str LIKE p1 OR str LIKE p2 ...}, all with the backslash as escape character. */
  public static CompiledPattern anyOf(List<String> patterns) {
    return anyOf(patterns, '\\');
  }

  /** {@code str LIKE p1 ESCAPE e OR str LIKE p2 ESCAPE e ...} (non-empty list). */
  public static CompiledPattern anyOf(List<String> patterns, char escapeChar) {
    if (patterns.isEmpty()) throw new IllegalArgumentException("no patterns");
    if (patterns.size() == 1) return LikeCompiler.compile(patterns.get(0), escapeChar);
    try {
      List<LikePattern> likes = new ArrayList<>();
      for (String p : patterns) likes.add(LikePattern.parse(p, escapeChar));
      StringJoiner source = new StringJoiner(" or ", "like ", "");
      for (LikePattern like : likes) source.add(like.sql());

      List<byte[]> literals = new ArrayList<>();
      for (LikePattern like : likes) like.containedLiteral().ifPresent(literals::add);
      if (literals.size() == likes.size()) return AhoCorasick.anyOf(literals, source.toString());

      ByteNfa nfa = new ByteNfa(LikeCompiler.MAX_NFA_NODES, "like patterns");
      int start = nfa.newNode();
      int accept = nfa.newNode();
      for (LikePattern like : likes) {
        int from = nfa.newNode();
        nfa.empty(start, from);
        nfa.empty(like.build(nfa, from), accept);
      }
      nfa.setStart(start);
      nfa.setAccept(accept);
      return nfa.toMatcher(source.toString());
    } catch (InvalidPatternException e) {
      return new CompiledPattern.Invalid(e.getMessage());
    } catch (UnsupportedPatternException e) {
      return new CompiledPattern.Unsupported(e.getMessage());
    }
  }

  /** {@code Contains(str, l1) OR Contains(str, l2) ...}: Aho-Corasick over the literals (non-empty list). */
  public static CompiledPattern containsAny(List<byte[]> literals) {
    return literals.size() == 1 ? LiteralMatchers.contains(literals.get(0)) : AhoCorasick.anyOf(literals);
  }
}
