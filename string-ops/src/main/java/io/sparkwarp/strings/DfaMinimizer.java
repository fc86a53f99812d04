package io.sparkwarp.strings;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Minimises a complete DFA and puts it in canonical form: the fewest states (Moore's partition refinement: split
 * blocks by the blocks their transitions reach until nothing splits), the fewest byte classes (bytes whose columns
 * are equal merge, classes numbered by their smallest byte) and states numbered breadth-first from the start. Equal
 * languages therefore give equal tables, whichever compiler built them. Moore's rounds cost states x classes each
 * and their number is bounded by the longest distinguishing string, which suits these small automata better than
 * the bookkeeping of Hopcroft's algorithm.
 */
final class DfaMinimizer {
  private DfaMinimizer() {}

  static DfaTable minimize(DfaTable dfa) {
    int[] block = refine(dfa);
    // Dropping unreachable states first lets their columns not keep byte classes apart.
    DfaTable reachable = renumber(quotient(dfa, block));
    return renumber(mergeClasses(reachable));
  }

  /** The block of each state in the coarsest partition that respects acceptance and transitions. */
  private static int[] refine(DfaTable dfa) {
    int n = dfa.stateCount();
    int k = dfa.classCount();
    int[] block = new int[n];
    for (int s = 0; s < n; s++) block[s] = dfa.accepting()[s] ? 1 : 0;
    int blocks = -1;
    while (true) {
      Map<IntArrayKey, Integer> ids = new HashMap<>();
      int[] next = new int[n];
      for (int s = 0; s < n; s++) {
        int[] sig = new int[k + 1];
        sig[0] = block[s];
        for (int c = 0; c < k; c++) sig[c + 1] = block[dfa.next(s, c)];
        next[s] = ids.computeIfAbsent(new IntArrayKey(sig), x -> ids.size());
      }
      block = next;
      if (ids.size() == blocks) return block;
      blocks = ids.size();
    }
  }

  private static DfaTable quotient(DfaTable dfa, int[] block) {
    int blocks = Arrays.stream(block).max().orElse(0) + 1;
    int k = dfa.classCount();
    int[] next = new int[blocks * k];
    boolean[] accepting = new boolean[blocks];
    for (int s = 0; s < dfa.stateCount(); s++) {
      for (int c = 0; c < k; c++) next[block[s] * k + c] = block[dfa.next(s, c)];
      accepting[block[s]] = dfa.accepting()[s];
    }
    return new DfaTable(blocks, k, dfa.classOf(), next, block[dfa.start()], accepting);
  }

  /** Merges byte classes whose transitions agree in every state. */
  private static DfaTable mergeClasses(DfaTable dfa) {
    int n = dfa.stateCount();
    int k = dfa.classCount();
    Map<IntArrayKey, Integer> ids = new HashMap<>();
    int[] newClassOf = new int[256];
    int[] oldOfNew = new int[k];
    for (int b = 0; b < 256; b++) {
      int old = dfa.classOf()[b];
      int[] column = new int[n];
      for (int s = 0; s < n; s++) column[s] = dfa.next(s, old);
      int id = ids.computeIfAbsent(new IntArrayKey(column), x -> ids.size());
      oldOfNew[id] = old;
      newClassOf[b] = id;
    }
    int classes = ids.size();
    int[] next = new int[n * classes];
    for (int s = 0; s < n; s++) {
      for (int c = 0; c < classes; c++) next[s * classes + c] = dfa.next(s, oldOfNew[c]);
    }
    return new DfaTable(n, classes, newClassOf, next, dfa.start(), dfa.accepting());
  }

  /** Numbers states breadth-first from the start, following classes in order. */
  private static DfaTable renumber(DfaTable dfa) {
    int n = dfa.stateCount();
    int k = dfa.classCount();
    int[] newOf = new int[n];
    Arrays.fill(newOf, -1);
    int[] order = new int[n];
    int count = 0;
    newOf[dfa.start()] = count;
    order[count++] = dfa.start();
    for (int i = 0; i < count; i++) {
      for (int c = 0; c < k; c++) {
        int t = dfa.next(order[i], c);
        if (newOf[t] < 0) {
          newOf[t] = count;
          order[count++] = t;
        }
      }
    }
    int[] next = new int[count * k];
    boolean[] accepting = new boolean[count];
    for (int i = 0; i < count; i++) {
      for (int c = 0; c < k; c++) next[i * k + c] = newOf[dfa.next(order[i], c)];
      accepting[i] = dfa.accepting()[order[i]];
    }
    return new DfaTable(count, k, dfa.classOf(), next, 0, accepting);
  }
}
