package io.sparkwarp.strings;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a {@link ByteNfa} into a complete DFA over byte classes. A DFA state is the set of NFA configurations the
 * automaton can be in, a configuration being a node plus the {@link EndLookahead} obligations of the end anchors it
 * passed. Assertions are resolved while following empty edges: {@code ^} holds only before the first byte; an end
 * anchor adds an obligation on the bytes still to come, which for {@code $} depends on whether the byte just read was
 * {@code \r} (so {@code \r} gets a byte class of its own). When the accept node reads everything and a configuration
 * reaches it with nothing pending, the state becomes the single accepting sink, so the device stops reading there
 * and the construction stays small.
 */
final class SubsetConstruction {
  /** Most DFA states built before minimisation. */
  static final int MAX_STATES = 20_000;

  private static final int MASK_BITS = EndLookahead.MASK_BITS;
  private static final int MASK = (1 << MASK_BITS) - 1;

  private final ByteNfa nfa;
  private final int[] classOf = new int[256];
  private final int[] classFirstByte;
  private final ConfigSet seen = new ConfigSet();
  private final int acceptAll;
  /** Nodes worth keeping in a state: they read bytes or accept, and can still lead to acceptance. */
  private final boolean[] keep;

  private SubsetConstruction(ByteNfa nfa) {
    this.nfa = nfa;
    this.classFirstByte = byteClasses();
    this.acceptAll = nfa.acceptConsumesAll() ? config(nfa.accept(), 0) : -1;
    this.keep = usefulNodes();
  }

  /**
   * The DFA of {@code nfa}, not yet minimised.
   *
   * @throws UnsupportedPatternException when it needs more than {@link #MAX_STATES} states
   */
  static DfaTable build(ByteNfa nfa) {
    return new SubsetConstruction(nfa).run();
  }

  private DfaTable run() {
    int classCount = classFirstByte.length;
    Map<IntArrayKey, Integer> ids = new HashMap<>();
    List<int[]> states = new ArrayList<>();
    int[] next = new int[64 * classCount];
    int[] start = closure(new int[] {config(nfa.start(), 0)}, 1, true, false);
    ids.put(new IntArrayKey(start), 0);
    states.add(start);
    for (int s = 0; s < states.size(); s++) {
      int[] configs = states.get(s);
      for (int c = 0; c < classCount; c++) {
        int[] target = step(configs, classFirstByte[c]);
        Integer id = ids.get(new IntArrayKey(target));
        if (id == null) {
          if (states.size() >= MAX_STATES) {
            throw new UnsupportedPatternException(nfa.subject() + " needs more than " + MAX_STATES + " DFA states");
          }
          id = states.size();
          ids.put(new IntArrayKey(target), id);
          states.add(target);
        }
        if (s * classCount + c >= next.length) next = Arrays.copyOf(next, next.length * 2);
        next[s * classCount + c] = id;
      }
    }
    boolean[] accepting = new boolean[states.size()];
    for (int s = 0; s < states.size(); s++) accepting[s] = accepts(states.get(s));
    return new DfaTable(states.size(), classCount, classOf.clone(), Arrays.copyOf(next, states.size() * classCount), 0,
        accepting);
  }

  /** Byte classes: bytes no edge (and no {@code $} obligation) tells apart share one. */
  private int[] byteClasses() {
    boolean[] cut = new boolean[257];
    for (int n = 0; n < nfa.nodeCount(); n++) {
      for (int e = 0; e < nfa.byteEdgeCount(n); e++) {
        cut[nfa.byteEdgeLo(n, e)] = true;
        cut[nfa.byteEdgeHi(n, e) + 1] = true;
      }
    }
    if (nfa.hasDollar()) {
      for (int b : EndLookahead.SIGNIFICANT_BYTES) {
        cut[b] = true;
        cut[b + 1] = true;
      }
    }
    List<Integer> firsts = new ArrayList<>();
    for (int b = 0; b < 256; b++) {
      if (b == 0 || cut[b]) firsts.add(b);
      classOf[b] = firsts.size() - 1;
    }
    return firsts.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Nodes that read bytes (or accept) and from which the accept node is reachable without passing a {@code ^}. Once
   * a closure is taken a node with only empty edges adds nothing; a {@code ^} holds only before the first byte, and
   * the start closure has passed every {@code ^} reachable there. Dropping the rest lets equal futures share a state.
   */
  private boolean[] usefulNodes() {
    int n = nfa.nodeCount();
    List<List<Integer>> predecessors = new ArrayList<>(n);
    for (int i = 0; i < n; i++) predecessors.add(new ArrayList<>());
    for (int i = 0; i < n; i++) {
      for (int e = 0; e < nfa.byteEdgeCount(i); e++) predecessors.get(nfa.byteEdgeTarget(i, e)).add(i);
      for (int e = 0; e < nfa.emptyEdgeCount(i); e++) {
        if (nfa.emptyEdgeAssertion(i, e) != ByteNfa.Assertion.BEGIN) predecessors.get(nfa.emptyEdgeTarget(i, e)).add(i);
      }
    }
    boolean[] live = new boolean[n];
    int[] stack = new int[n];
    int top = 0;
    live[nfa.accept()] = true;
    stack[top++] = nfa.accept();
    while (top > 0) {
      for (int pred : predecessors.get(stack[--top])) {
        if (!live[pred]) {
          live[pred] = true;
          stack[top++] = pred;
        }
      }
    }
    for (int i = 0; i < n; i++) live[i] &= nfa.byteEdgeCount(i) > 0 || i == nfa.accept();
    return live;
  }

  /** The state after reading byte {@code b} (every byte of its class behaves the same). */
  private int[] step(int[] configs, int b) {
    int[] targets = new int[8];
    int n = 0;
    for (int key : configs) {
      int node = key >>> MASK_BITS;
      int mask = EndLookahead.advance(key & MASK, b);
      if (mask < 0) continue;
      for (int e = 0; e < nfa.byteEdgeCount(node); e++) {
        if (nfa.byteEdgeLo(node, e) <= b && b <= nfa.byteEdgeHi(node, e)) {
          if (n == targets.length) targets = Arrays.copyOf(targets, n * 2);
          targets[n++] = config(nfa.byteEdgeTarget(node, e), mask);
        }
      }
    }
    return closure(targets, n, false, b == '\r');
  }

  /**
   * The useful configurations reachable over empty edges, sorted, without those whose obligations include another's
   * at the same node; the accepting sink when it is among them.
   */
  private int[] closure(int[] from, int count, boolean atStart, boolean afterCr) {
    seen.clear();
    int[] stack = new int[Math.max(8, count)];
    int top = 0;
    for (int i = 0; i < count; i++) {
      if (seen.add(from[i])) stack[top++] = from[i];
    }
    while (top > 0) {
      int key = stack[--top];
      if (key == acceptAll) return new int[] {acceptAll};
      int node = key >>> MASK_BITS;
      int mask = key & MASK;
      for (int e = 0; e < nfa.emptyEdgeCount(node); e++) {
        int target = nfa.emptyEdgeTarget(node, e);
        int next = switch (nfa.emptyEdgeAssertion(node, e)) {
          case NONE -> config(target, mask);
          case BEGIN -> atStart ? config(target, mask) : -1;
          case DOLLAR -> config(target, mask | EndLookahead.dollarMask(afterCr));
          case END_OF_INPUT -> config(target, mask | EndLookahead.endOfInputMask());
        };
        if (next >= 0 && seen.add(next)) {
          if (top == stack.length) stack = Arrays.copyOf(stack, top * 2);
          stack[top++] = next;
        }
      }
    }
    return withoutSubsumed(seen.sorted());
  }

  /**
   * Drops useless nodes, nodes that must read a byte when no byte may follow, and, per node, configurations whose
   * obligations are a superset of another's: all they can accept, the other accepts too.
   */
  private int[] withoutSubsumed(int[] sorted) {
    int[] out = new int[sorted.length];
    int n = 0;
    int groupStart = 0;
    for (int key : sorted) {
      int node = key >>> MASK_BITS;
      if (!keep[node] || (node != nfa.accept() && EndLookahead.requiresEnd(key & MASK))) continue;
      if (n == 0 || out[n - 1] >>> MASK_BITS != node) groupStart = n;
      boolean subsumed = false;
      for (int i = groupStart; i < n && !subsumed; i++) subsumed = (out[i] & key & MASK) == (out[i] & MASK);
      if (!subsumed) out[n++] = key;
    }
    return Arrays.copyOf(out, n);
  }

  private boolean accepts(int[] configs) {
    for (int key : configs) {
      if (key >>> MASK_BITS == nfa.accept() && EndLookahead.satisfiedAtEnd(key & MASK)) return true;
    }
    return false;
  }

  private static int config(int node, int mask) {
    return node << MASK_BITS | mask;
  }

  /** A reusable open-addressing set of non-negative ints, cleared in O(1) by a generation stamp. */
  private static final class ConfigSet {
    private int[] keys = new int[64];
    private int[] stamps = new int[64];
    private int generation = 1;
    private int size;

    void clear() {
      generation++;
      size = 0;
    }

    boolean add(int key) {
      if (2 * (size + 1) > keys.length) grow();
      int mask = keys.length - 1;
      for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
        if (stamps[i] != generation) {
          stamps[i] = generation;
          keys[i] = key;
          size++;
          return true;
        }
        if (keys[i] == key) return false;
      }
    }

    int[] sorted() {
      int[] out = new int[size];
      int n = 0;
      for (int i = 0; i < keys.length; i++) if (stamps[i] == generation) out[n++] = keys[i];
      Arrays.sort(out);
      return out;
    }

    private void grow() {
      int[] oldKeys = keys;
      int[] oldStamps = stamps;
      int oldGeneration = generation;
      keys = new int[oldKeys.length * 2];
      stamps = new int[oldKeys.length * 2];
      generation = 1;
      size = 0;
      for (int i = 0; i < oldKeys.length; i++) if (oldStamps[i] == oldGeneration) add(oldKeys[i]);
    }

    private static int mix(int key) {
      return key * 0x9E3779B1 >>> 7;
    }
  }
}
