package io.sparkwarp.strings;

import java.util.Arrays;

/** An int array as a hash key, compared by content: a DFA state's NFA configurations, a state's signature. */
record IntArrayKey(int[] values) {
  @Override
  public boolean equals(Object o) {
    return o instanceof IntArrayKey k && Arrays.equals(values, k.values);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(values);
  }
}
