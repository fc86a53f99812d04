package io.sparkwarp.strings;

import io.sparkwarp.kernels.strings.DfaMatcher;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.StringJoiner;

/**
 * "Contains any of these literals" as a {@link DfaMatcher}: the Aho-Corasick goto and failure functions over a trie
 * of the literals' bytes, turned into a full transition table (each missing goto edge resolved through the failure
 * links), with every output state redirected to one accepting sink so the device stops at the first occurrence.
 * Bytes that occur in no literal share one byte class. An empty literal occurs in every string: always true. Used
 * for ORs of Contains and {@code %literal%} LIKEs on one column and for RLIKE alternations of literals.
 */
public final class AhoCorasick {
  private AhoCorasick() {}

  /** A matcher for strings holding at least one of {@code literals} (non-empty list). */
  public static CompiledPattern anyOf(List<byte[]> literals) {
    StringJoiner source = new StringJoiner(", ", "contains any of ", "");
    for (byte[] l : literals) source.add("'" + new String(l, StandardCharsets.UTF_8) + "'");
    return anyOf(literals, source.toString());
  }

  /** As {@link #anyOf(List)}, with the source text for explain output. */
  static CompiledPattern anyOf(List<byte[]> literals, String source) {
    if (literals.isEmpty()) throw new IllegalArgumentException("no literals");
    try {
      return DfaMinimizer.minimize(automaton(literals)).toMatcher("literals", source);
    } catch (UnsupportedPatternException e) {
      return new CompiledPattern.Unsupported(e.getMessage());
    }
  }

  private static DfaTable automaton(List<byte[]> literals) {
    int[] classOf = new int[256];
    Arrays.fill(classOf, -1);
    int classes = 1;  // class 0: bytes in no literal
    for (byte[] l : literals) {
      for (byte b : l) if (classOf[b & 0xff] < 0) classOf[b & 0xff] = classes++;
    }
    for (int b = 0; b < 256; b++) if (classOf[b] < 0) classOf[b] = 0;

    // The trie: goto[node * classes + class], -1 where absent; node 0 is the root.
    List<int[]> gotoRows = new ArrayList<>();
    List<Boolean> output = new ArrayList<>();
    gotoRows.add(emptyRow(classes));
    output.add(false);
    for (byte[] l : literals) {
      int node = 0;
      for (byte b : l) {
        int c = classOf[b & 0xff];
        if (gotoRows.get(node)[c] < 0) {
          if (gotoRows.size() >= SubsetConstruction.MAX_STATES) {
            throw new UnsupportedPatternException(
                "literals need more than " + SubsetConstruction.MAX_STATES + " DFA states");
          }
          gotoRows.get(node)[c] = gotoRows.size();
          gotoRows.add(emptyRow(classes));
          output.add(false);
        }
        node = gotoRows.get(node)[c];
      }
      output.set(node, true);
    }

    // Breadth-first, so a node's failure target (a shorter node) is complete before the node itself.
    int n = gotoRows.size();
    int[] next = new int[n * classes];
    int[] failure = new int[n];
    boolean[] accepting = new boolean[n];
    int[] queue = new int[n];
    int head = 0;
    int tail = 0;
    queue[tail++] = 0;
    while (head < tail) {
      int u = queue[head++];
      accepting[u] = output.get(u) || (u != 0 && accepting[failure[u]]);
      for (int c = 0; c < classes; c++) {
        int v = gotoRows.get(u)[c];
        if (v >= 0) {
          failure[v] = u == 0 ? 0 : next[failure[u] * classes + c];
          next[u * classes + c] = v;
          queue[tail++] = v;
        } else {
          next[u * classes + c] = u == 0 ? 0 : next[failure[u] * classes + c];
        }
      }
    }
    // Found is found: an output state keeps accepting whatever follows.
    for (int u = 0; u < n; u++) {
      if (accepting[u]) Arrays.fill(next, u * classes, (u + 1) * classes, u);
    }
    return new DfaTable(n, classes, classOf, next, 0, accepting);
  }

  private static int[] emptyRow(int classes) {
    int[] row = new int[classes];
    Arrays.fill(row, -1);
    return row;
  }
}
