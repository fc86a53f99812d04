package io.sparkwarp.kernels.strings;

import java.io.Serializable;

/**
 * A compiled string predicate in one of the two forms the device runs: a {@link SegmentMatcher} (anchored prefix and
 * suffix plus literal segments found in order with KMP) or a {@link DfaMatcher} (a byte-level automaton: LIKE with
 * {@code _}, Aho-Corasick for many literals, RLIKE). Immutable and serialisable, so plans can ship it to executors.
 *
 * <p>{@link #matches} is the definition of the predicate over UTF-8 bytes; the host backend runs it and the device
 * kernels are tested against it.
 */
public sealed interface StringMatcher extends Serializable permits SegmentMatcher, DfaMatcher {
  /** Whether {@code bytes[offset, offset + length)} matches. */
  boolean matches(byte[] bytes, int offset, int length);

  /** Short form for explain output and metrics, e.g. {@code segments[prefix=3, 'green', suffix=0]}. */
  String describe();
}
