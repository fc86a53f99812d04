package io.sparkwarp.kernels.strings;

import java.util.Arrays;

/**
 * A deterministic automaton over bytes: the string matches when, starting from {@link #startState()} and taking
 * one transition per byte, it ends in an accepting state. Bytes are mapped to {@link #classCount()} equivalence
 * classes first ({@link #classOf}), so the table is {@code states x classes} and fits in shared memory. A state
 * whose transitions all lead back to itself is a sink: the device stops reading a string once it reaches one (a dead
 * state rejects, an accepting sink accepts: "found" for a search automaton).
 *
 * <p>Unanchored searches (RLIKE's find, Aho-Corasick) are built into the automaton by whoever compiles it, so
 * running it over the whole string is always the semantics.
 */
public final class DfaMatcher implements StringMatcher {
  private static final long serialVersionUID = 1L;

  /** Most table entries (states x classes) a matcher may have: 32 KiB of int16 in shared memory. */
  public static final int MAX_TABLE_ENTRIES = 16_384;

  private final int stateCount;
  private final int classCount;
  private final byte[] classOf;
  private final int[] next;
  private final int startState;
  private final boolean[] accepting;
  private final String source;

  /**
   * @param classOf 256 entries, the class (0 to classCount - 1, as an unsigned byte) of each byte value
   * @param next {@code stateCount * classCount} entries, row-major: next[state * classCount + class]
   * @param source what it was compiled from, for explain output
   * @throws IllegalArgumentException when the table is inconsistent or larger than {@link #MAX_TABLE_ENTRIES}
   */
  public DfaMatcher(int stateCount, int classCount, byte[] classOf, int[] next, int startState, boolean[] accepting,
      String source) {
    if (stateCount < 1 || classCount < 1 || classCount > 256) {
      throw new IllegalArgumentException("bad automaton shape: " + stateCount + " states, " + classCount + " classes");
    }
    if ((long) stateCount * classCount > MAX_TABLE_ENTRIES) {
      throw new IllegalArgumentException("automaton of " + stateCount + " states x " + classCount
          + " byte classes exceeds " + MAX_TABLE_ENTRIES + " table entries");
    }
    if (classOf.length != 256 || next.length != stateCount * classCount || accepting.length != stateCount) {
      throw new IllegalArgumentException("automaton arrays do not match its shape");
    }
    for (byte c : classOf) {
      if ((c & 0xff) >= classCount) throw new IllegalArgumentException("byte class out of range: " + (c & 0xff));
    }
    for (int s : next) {
      if (s < 0 || s >= stateCount) throw new IllegalArgumentException("transition to missing state " + s);
    }
    if (startState < 0 || startState >= stateCount) throw new IllegalArgumentException("bad start " + startState);
    this.stateCount = stateCount;
    this.classCount = classCount;
    this.classOf = classOf.clone();
    this.next = next.clone();
    this.startState = startState;
    this.accepting = accepting.clone();
    this.source = source;
  }

  public int stateCount() {
    return stateCount;
  }

  public int classCount() {
    return classCount;
  }

  /** The class of byte value {@code b} (0..255). */
  public int classOf(int b) {
    return classOf[b & 0xff] & 0xff;
  }

  public int next(int state, int byteClass) {
    return next[state * classCount + byteClass];
  }

  public int startState() {
    return startState;
  }

  public boolean accepting(int state) {
    return accepting[state];
  }

  /** Whether every transition of {@code state} leads back to it: reading further cannot change the answer. */
  public boolean isSink(int state) {
    for (int c = 0; c < classCount; c++) if (next[state * classCount + c] != state) return false;
    return true;
  }

  /** The 256-entry byte class map. */
  public byte[] classMap() {
    return classOf.clone();
  }

  /** The transition table, row-major by state. */
  public int[] table() {
    return next.clone();
  }

  @Override
  public boolean matches(byte[] bytes, int offset, int length) {
    int s = startState;
    for (int i = offset; i < offset + length; i++) {
      s = next[s * classCount + (classOf[bytes[i] & 0xff] & 0xff)];
    }
    return accepting[s];
  }

  @Override
  public String describe() {
    return "dfa[" + stateCount + " states x " + classCount + " classes: " + source + "]";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DfaMatcher m && stateCount == m.stateCount && classCount == m.classCount
        && startState == m.startState && Arrays.equals(classOf, m.classOf) && Arrays.equals(next, m.next)
        && Arrays.equals(accepting, m.accepting);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(next) * 31 + Arrays.hashCode(classOf) + startState;
  }

  @Override
  public String toString() {
    return describe();
  }
}
