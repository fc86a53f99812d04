package io.sparkwarp.strings;

import io.sparkwarp.kernels.strings.SegmentMatcher;
import io.sparkwarp.strings.RegexNode.Alternation;
import io.sparkwarp.strings.RegexNode.Anchor;
import io.sparkwarp.strings.RegexNode.Chars;
import io.sparkwarp.strings.RegexNode.Concat;
import io.sparkwarp.strings.RegexNode.Repeat;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Compiles Spark's {@code RLike(str, regex)} with a literal regex (UTF8_BINARY collation): Spark runs {@code
 * Pattern.compile(regex).matcher(str).find(0)}, true when the regex matches anywhere. The regex is parsed
 * ({@link RegexParser}), built into an NFA over UTF-8 bytes behind an any-bytes prefix and before an any-bytes
 * accepting suffix, determinised with exact anchors ({@link SubsetConstruction}: the first complete match with
 * nothing pending reaches the accepting sink) and minimised. A plain literal becomes a Contains (or, after {@code ^},
 * a StartsWith) {@link SegmentMatcher}, and an alternation of literals goes through {@link AhoCorasick}, which yields
 * the same minimal DFA at less cost.
 */
public final class RegexCompiler {
  /** Most NFA nodes a regex may need (counted repeats are expanded copy by copy). */
  static final int MAX_NFA_NODES = 20_000;

  private RegexCompiler() {}

  /** {@code str RLIKE regex}. */
  public static CompiledPattern compile(String regex) {
    try {
      Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      return new CompiledPattern.Invalid(e.getMessage());
    }
    String source = "rlike '" + regex + "'";
    try {
      RegexNode root = RegexParser.parse(regex);
      Optional<CompiledPattern> literal = literalShortcut(root, source);
      if (literal.isPresent()) return literal.get();
      return automaton(root).toMatcher(source);
    } catch (UnsupportedPatternException e) {
      return new CompiledPattern.Unsupported(e.getMessage());
    } catch (RuntimeException e) {
      // A pattern the JDK accepts but this parser trips on is a bug here; the CPU still gives the right answer.
      return new CompiledPattern.Unsupported("regex could not be translated (" + e + ")");
    }
  }

  private static ByteNfa automaton(RegexNode root) {
    ByteNfa nfa = new ByteNfa(MAX_NFA_NODES, "regex");
    try {
      int start = nfa.newNode();
      nfa.bytes(start, 0, 255, start);  // the match may begin anywhere
      int end = build(nfa, root, start);
      int accept = nfa.newNode();
      nfa.empty(end, accept);
      nfa.bytes(accept, 0, 255, accept);  // and end anywhere
      nfa.setStart(start);
      nfa.setAccept(accept);
      return nfa;
    } catch (UnsupportedPatternException e) {
      int largest = largestCount(root);
      if (largest <= 1) throw e;
      throw new UnsupportedPatternException(e.getMessage() + " (counted repeats such as {" + largest
          + "} are expanded copy by copy)");
    }
  }

  private static int build(ByteNfa nfa, RegexNode node, int from) {
    if (node instanceof Chars c) return nfa.codePoint(from, c.set());
    if (node instanceof Anchor a) {
      int to = nfa.newNode();
      nfa.assertion(from, a.assertion(), to);
      return to;
    }
    if (node instanceof Concat c) {
      int at = from;
      for (RegexNode item : c.items()) at = build(nfa, item, at);
      return at;
    }
    if (node instanceof Alternation a) {
      int end = nfa.newNode();
      for (RegexNode alternative : a.alternatives()) {
        int begin = nfa.newNode();
        nfa.empty(from, begin);
        nfa.empty(build(nfa, alternative, begin), end);
      }
      return end;
    }
    Repeat r = (Repeat) node;
    int at = from;
    for (int i = 0; i < r.min(); i++) at = build(nfa, r.body(), at);
    if (r.max() == Repeat.UNBOUNDED) {
      int loop = nfa.newNode();
      nfa.empty(at, loop);
      nfa.empty(build(nfa, r.body(), loop), loop);
      return loop;
    }
    int end = nfa.newNode();
    for (int i = r.min(); i < r.max(); i++) {
      nfa.empty(at, end);
      at = build(nfa, r.body(), at);
    }
    nfa.empty(at, end);
    return end;
  }

  /** A Contains, StartsWith or Aho-Corasick matcher when the regex is literal text (after {@code ^}) or such an OR. */
  private static Optional<CompiledPattern> literalShortcut(RegexNode root, String source) {
    boolean anchored = false;
    RegexNode body = root;
    if (root instanceof Concat c && !c.items().isEmpty()
        && c.items().get(0) instanceof Anchor a && a.assertion() == ByteNfa.Assertion.BEGIN) {
      anchored = true;
      body = new Concat(c.items().subList(1, c.items().size()));
    }
    Optional<byte[]> text = literalText(body);
    if (text.isPresent()) {
      return Optional.of(new CompiledPattern.Supported(
          anchored ? SegmentMatcher.startsWith(text.get()) : SegmentMatcher.contains(text.get())));
    }
    if (anchored || !(root instanceof Alternation alternation)) return Optional.empty();
    List<byte[]> literals = new ArrayList<>();
    for (RegexNode alternative : alternation.alternatives()) {
      Optional<byte[]> literal = literalText(alternative);
      if (literal.isEmpty()) return Optional.empty();
      literals.add(literal.get());
    }
    return Optional.of(AhoCorasick.anyOf(literals, source));
  }

  /** The UTF-8 text a node matches when it matches exactly one string of single characters. */
  private static Optional<byte[]> literalText(RegexNode node) {
    StringBuilder text = new StringBuilder();
    List<RegexNode> items = node instanceof Concat c ? c.items() : List.of(node);
    for (RegexNode item : items) {
      if (!(item instanceof Chars c) || c.set().rangeCount() != 1 || c.set().lo(0) != c.set().hi(0)) {
        return Optional.empty();
      }
      text.appendCodePoint(c.set().lo(0));
    }
    return Optional.of(text.toString().getBytes(StandardCharsets.UTF_8));
  }

  private static int largestCount(RegexNode node) {
    if (node instanceof Repeat r) return Math.max(Math.max(r.min(), r.max()), largestCount(r.body()));
    List<RegexNode> children = node instanceof Concat c ? c.items()
        : node instanceof Alternation a ? a.alternatives() : List.of();
    return children.stream().mapToInt(RegexCompiler::largestCount).max().orElse(0);
  }
}
