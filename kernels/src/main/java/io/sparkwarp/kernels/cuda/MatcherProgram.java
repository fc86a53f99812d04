package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.strings.DfaMatcher;
import io.sparkwarp.kernels.strings.SegmentMatcher;
import io.sparkwarp.kernels.strings.StringMatcher;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * A matcher as the bytes the match kernels of {@code strings.cu} copy into shared memory: the ABIs of
 * {@code kmp.cuh} (segment_abi) and {@code dfa.cuh} (dfa_abi), which this class must keep in step with. Little-endian,
 * int32 header words first, every section 8-byte aligned, the whole a multiple of 16 bytes (blocks copy it in
 * 16-byte words).
 */
final class MatcherProgram {
  private static final int SEGMENT_HEADER_WORDS = 12;
  private static final int DFA_HEADER_WORDS = 8;
  private static final int DFA_ACCEPTING = 0x4000;
  private static final int DFA_SINK = 0x8000;

  private MatcherProgram() {}

  static byte[] encode(StringMatcher matcher) {
    if (matcher instanceof SegmentMatcher s) return segments(s);
    return dfa((DfaMatcher) matcher);
  }

  /**
   * Header: prefix length, suffix length, segment count, exact, min length, then the offsets of: segment bases,
   * segment lengths, rest (bytes of segments i..K-1, K + 1 entries), failure table (one int32 per pattern byte,
   * segment i's f[j] at base_i + j), prefix (zero to a whole word), suffix (8 zero bytes before, a whole word and 8
   * zero bytes after: the kernel reads it at any alignment), pattern bytes.
   */
  private static byte[] segments(SegmentMatcher m) {
    byte[] prefix = m.prefix();
    byte[] suffix = m.suffix();
    List<byte[]> segments = m.segments();
    int k = segments.size();
    int patternBytes = segments.stream().mapToInt(s -> s.length).sum();
    int segmentBase = 4 * SEGMENT_HEADER_WORDS;
    int segmentLength = segmentBase + 4 * k;
    int rest = segmentLength + 4 * k;
    int failure = rest + 4 * (k + 1);
    int prefixAt = align(failure + 4 * patternBytes, 8);
    int suffixAt = prefixAt + align(prefix.length, 8);
    int patternAt = suffixAt + 8 + align(suffix.length, 8) + 8;
    ByteBuffer b = ByteBuffer.allocate(align(patternAt + patternBytes, 16)).order(ByteOrder.LITTLE_ENDIAN);
    int[] header = {prefix.length, suffix.length, k, m.exact() ? 1 : 0, m.minLength(), segmentBase, segmentLength,
        rest, failure, prefixAt, suffixAt, patternAt};
    for (int i = 0; i < header.length; i++) b.putInt(4 * i, header[i]);
    int base = 0;
    int remaining = patternBytes;
    for (int i = 0; i < k; i++) {
      byte[] s = segments.get(i);
      int[] f = m.failure(i);
      b.putInt(segmentBase + 4 * i, base);
      b.putInt(segmentLength + 4 * i, s.length);
      b.putInt(rest + 4 * i, remaining);
      for (int j = 0; j < s.length; j++) b.putInt(failure + 4 * (base + j), f[j]);
      b.put(patternAt + base, s);
      base += s.length;
      remaining -= s.length;
    }
    b.putInt(rest + 4 * k, 0);
    b.put(prefixAt, prefix);
    b.put(suffixAt + 8, suffix);
    return b.array();
  }

  /**
   * Header: class count, state count, the start state's entry, the offsets of the 256-byte class map and of the
   * uint16 table. An entry of the table (next[state][class]) or the start is the target state's row offset
   * (state x classes, below 2^14) with its accepting and sink flags in bits 14 and 15.
   */
  private static byte[] dfa(DfaMatcher d) {
    int classes = 4 * DFA_HEADER_WORDS;
    int table = classes + 256;
    int states = d.stateCount();
    int classCount = d.classCount();
    int[] entry = new int[states];
    for (int s = 0; s < states; s++) {
      entry[s] = s * classCount | (d.accepting(s) ? DFA_ACCEPTING : 0) | (d.isSink(s) ? DFA_SINK : 0);
    }
    ByteBuffer b = ByteBuffer.allocate(align(table + 2 * states * classCount, 16)).order(ByteOrder.LITTLE_ENDIAN);
    int[] header = {classCount, states, entry[d.startState()], classes, table};
    for (int i = 0; i < header.length; i++) b.putInt(4 * i, header[i]);
    b.put(classes, d.classMap());
    int[] next = d.table();
    for (int i = 0; i < next.length; i++) b.putShort(table + 2 * i, (short) entry[next[i]]);
    return b.array();
  }

  private static int align(int n, int to) {
    return (n + to - 1) / to * to;
  }
}
