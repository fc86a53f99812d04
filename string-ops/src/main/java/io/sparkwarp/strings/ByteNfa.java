package io.sparkwarp.strings;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A nondeterministic automaton over UTF-8 bytes, built Thompson-style by the LIKE and regex compilers and turned
 * into a DFA by {@link SubsetConstruction}. Nodes have byte-range edges and empty edges; an empty edge may carry an
 * assertion (start of input, java.util.regex's {@code $}, end of input). The string is accepted when the automaton
 * can be in {@link #accept()} at its end with every end anchor it passed satisfied. The builder methods take the
 * node to start from and return the node where the piece ends.
 */
final class ByteNfa {
  /** What an empty edge requires. */
  enum Assertion {
    NONE,
    /** {@code ^}: only at the start of the input. */
    BEGIN,
    /** {@code $} or {@code \Z}: see {@link EndLookahead}. */
    DOLLAR,
    /** {@code \z}: only at the end of the input. */
    END_OF_INPUT
  }

  private static final Assertion[] ASSERTIONS = Assertion.values();

  private final int maxNodes;
  private final String subject;
  private final List<Node> nodes = new ArrayList<>();
  private int start = -1;
  private int accept = -1;
  private boolean hasDollar;

  /** Edges out of one node, as flat int lists. */
  private static final class Node {
    /** lo, hi, target triples. */
    int[] bytes = new int[0];
    int byteCount;
    /** assertion ordinal, target pairs. */
    int[] empties = new int[0];
    int emptyCount;
  }

  /**
   * @param maxNodes the most nodes it may grow to; beyond that building throws with a reason naming {@code subject}
   */
  ByteNfa(int maxNodes, String subject) {
    this.maxNodes = maxNodes;
    this.subject = subject;
  }

  int newNode() {
    if (nodes.size() >= maxNodes) {
      throw new UnsupportedPatternException(subject + " needs more than " + maxNodes + " automaton nodes");
    }
    nodes.add(new Node());
    return nodes.size() - 1;
  }

  void empty(int from, int to) {
    assertion(from, Assertion.NONE, to);
  }

  void assertion(int from, Assertion kind, int to) {
    Node n = nodes.get(from);
    if (n.emptyCount * 2 == n.empties.length) n.empties = Arrays.copyOf(n.empties, Math.max(4, n.empties.length * 2));
    n.empties[n.emptyCount * 2] = kind.ordinal();
    n.empties[n.emptyCount * 2 + 1] = to;
    n.emptyCount++;
    hasDollar |= kind == Assertion.DOLLAR;
  }

  void bytes(int from, int lo, int hi, int to) {
    Node n = nodes.get(from);
    if (n.byteCount * 3 == n.bytes.length) n.bytes = Arrays.copyOf(n.bytes, Math.max(6, n.bytes.length * 2));
    n.bytes[n.byteCount * 3] = lo;
    n.bytes[n.byteCount * 3 + 1] = hi;
    n.bytes[n.byteCount * 3 + 2] = to;
    n.byteCount++;
  }

  /** One character from {@code set}, as its UTF-8 bytes; encodings sharing leading byte ranges share nodes. */
  int codePoint(int from, CodePointSet set) {
    int end = newNode();
    Map<List<Integer>, Integer> shared = new HashMap<>();
    for (Utf8Sequences.Sequence seq : Utf8Sequences.of(set)) {
      int at = from;
      for (int i = 0; i < seq.length(); i++) {
        if (i == seq.length() - 1) {
          bytes(at, seq.lo()[i], seq.hi()[i], end);
        } else {
          int node = at;
          int lo = seq.lo()[i];
          int hi = seq.hi()[i];
          at = shared.computeIfAbsent(List.of(node, lo, hi), k -> {
            int next = newNode();
            bytes(node, lo, hi, next);
            return next;
          });
        }
      }
    }
    return end;
  }

  /** The UTF-8 bytes of one literal code point. */
  int literal(int from, int codePoint) {
    int at = from;
    for (int b : Utf8Sequences.encode(codePoint)) {
      int next = newNode();
      bytes(at, b, b, next);
      at = next;
    }
    return at;
  }

  /** Any number of bytes (on valid UTF-8 input that is any number of characters). */
  int anyBytes(int from) {
    int loop = newNode();
    empty(from, loop);
    bytes(loop, 0, 255, loop);
    return loop;
  }

  /**
   * The minimised device matcher of this automaton, or why there is none.
   *
   * @param source what it was compiled from, for explain output
   * @throws UnsupportedPatternException when the construction grows past its cap
   */
  CompiledPattern toMatcher(String source) {
    return DfaMinimizer.minimize(SubsetConstruction.build(this)).toMatcher(subject, source);
  }

  void setStart(int node) {
    start = node;
  }

  void setAccept(int node) {
    accept = node;
  }

  int start() {
    return start;
  }

  int accept() {
    return accept;
  }

  String subject() {
    return subject;
  }

  int nodeCount() {
    return nodes.size();
  }

  boolean hasDollar() {
    return hasDollar;
  }

  /** Whether the accept node reads any byte and stays: once there with nothing pending, the string matches. */
  boolean acceptConsumesAll() {
    Node n = nodes.get(accept);
    for (int i = 0; i < n.byteCount; i++) {
      if (n.bytes[3 * i] == 0 && n.bytes[3 * i + 1] == 255 && n.bytes[3 * i + 2] == accept) return true;
    }
    return false;
  }

  int byteEdgeCount(int node) {
    return nodes.get(node).byteCount;
  }

  int byteEdgeLo(int node, int edge) {
    return nodes.get(node).bytes[3 * edge];
  }

  int byteEdgeHi(int node, int edge) {
    return nodes.get(node).bytes[3 * edge + 1];
  }

  int byteEdgeTarget(int node, int edge) {
    return nodes.get(node).bytes[3 * edge + 2];
  }

  int emptyEdgeCount(int node) {
    return nodes.get(node).emptyCount;
  }

  Assertion emptyEdgeAssertion(int node, int edge) {
    return ASSERTIONS[nodes.get(node).empties[2 * edge]];
  }

  int emptyEdgeTarget(int node, int edge) {
    return nodes.get(node).empties[2 * edge + 1];
  }
}
