package io.sparkwarp.strings;

import io.sparkwarp.kernels.strings.DfaMatcher;

/**
 * A complete DFA over byte classes while it is being built and minimised, before it becomes a {@link DfaMatcher}
 * (which has a size cap). Arrays are owned by the table once passed in.
 *
 * @param classOf the class (0 to classCount - 1) of each byte value, 256 entries
 * @param next {@code stateCount * classCount} entries, row-major by state
 */
record DfaTable(int stateCount, int classCount, int[] classOf, int[] next, int start, boolean[] accepting) {
  int next(int state, int byteClass) {
    return next[state * classCount + byteClass];
  }

  /**
   * The matcher for this (minimised) table, or the reason it does not fit the device's table.
   *
   * @param subject what needs the states, for the reason ("regex", "like pattern")
   * @param source what it was compiled from, for explain output
   */
  CompiledPattern toMatcher(String subject, String source) {
    if ((long) stateCount * classCount > DfaMatcher.MAX_TABLE_ENTRIES) {
      return new CompiledPattern.Unsupported(subject + " needs " + stateCount + " DFA states x " + classCount
          + " byte classes, more than the " + DfaMatcher.MAX_TABLE_ENTRIES + " table entries of a device matcher");
    }
    byte[] classes = new byte[256];
    for (int b = 0; b < 256; b++) classes[b] = (byte) classOf[b];
    return new CompiledPattern.Supported(
        new DfaMatcher(stateCount, classCount, classes, next, start, accepting, source));
  }
}
