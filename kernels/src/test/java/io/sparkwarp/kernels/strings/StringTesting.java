package io.sparkwarp.kernels.strings;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import io.sparkwarp.kernels.testing.RandomVectors;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.VarCharVector;

/**
 * String-predicate test material: columns of awkward strings (nulls, empty, multi-byte UTF-8, runs that almost match,
 * planted pattern words, lengths around piece and segment boundaries, long strings), matchers (hand-picked,
 * KMP-adversarial, random segment matchers and random automata), the layouts computed independently of the code
 * under test, and read-backs.
 */
public final class StringTesting {
  /** Words the columns are salted with and the segment matchers are made of. */
  static final String[] WORDS = {"a", "ab", "ba", "abc", "aab", "aaab", "abab", "aaaaaaab", "ü", "日本", "😀b",
      "green", "special", "requests", "a pattern longer than eight bytes", "x"};

  private StringTesting() {}

  public static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * A string column of {@code rows} rows: 5% null, 5% empty, the rest concatenations of pattern words, their
   * truncations (near misses), runs of 'a' and 'b' (KMP's partial matches) and random UTF-8, about {@code typical}
   * bytes long, with 1 in 50 rows up to {@code longest} bytes.
   */
  public static VarCharVector column(int rows, int typical, int longest, Random rnd, BufferAllocator allocator) {
    VarCharVector v = new VarCharVector("s", allocator);
    v.allocateNew();
    for (int i = 0; i < rows; i++) {
      double u = rnd.nextDouble();
      if (u < 0.05) {
        v.setNull(i);
      } else {
        int target = u < 0.1 ? 0 : rnd.nextInt(50) == 0 ? rnd.nextInt(longest + 1) : rnd.nextInt(2 * typical + 1);
        v.setSafe(i, text(target, rnd));
      }
    }
    v.setValueCount(rows);
    return v;
  }

  /** About {@code target} bytes of pattern-like text. */
  public static byte[] text(int target, Random rnd) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(target + 16);
    while (out.size() < target) {
      int kind = rnd.nextInt(10);
      if (kind < 3) {
        out.writeBytes(utf8(WORDS[rnd.nextInt(WORDS.length)]));
      } else if (kind < 4) {
        byte[] w = utf8(WORDS[rnd.nextInt(WORDS.length)]);
        out.write(w, 0, rnd.nextInt(w.length));
      } else if (kind < 7) {
        for (int n = rnd.nextInt(12); n > 0; n--) out.write(rnd.nextInt(4) == 0 ? 'b' : 'a');
      } else {
        out.writeBytes(RandomVectors.randomString(rnd, 6, false));
      }
    }
    return out.toByteArray();
  }

  /**
   * Strings of the given lengths (around piece, group and segment boundaries: segments are 8 ceil(n / 256) bytes),
   * filled with 'a' and 'b', six of each length: one as it is and five with "aaab" planted to start 0 to 4 bytes
   * before a random segment boundary, so that lanes must finish occurrences in the next segment.
   */
  public static VarCharVector boundaryColumn(int[] lengths, Random rnd, BufferAllocator allocator) {
    VarCharVector v = new VarCharVector("s", allocator);
    v.allocateNew();
    int row = 0;
    byte[] plant = utf8("aaab");
    for (int n : lengths) {
      int w = (n + 255) / 256 * 8;
      for (int cut = -1; cut <= 4; cut++) {
        byte[] s = new byte[n];
        for (int i = 0; i < n; i++) s[i] = rnd.nextInt(3) == 0 ? (byte) 'b' : (byte) 'a';
        int at = Math.max(0, Math.min(n - plant.length, w * (1 + rnd.nextInt(31)) - cut));
        if (cut >= 0 && n >= plant.length) System.arraycopy(plant, 0, s, at, plant.length);
        v.setSafe(row++, s);
      }
    }
    v.setValueCount(row);
    return v;
  }

  /** The bytes the column holds for row i, by its offsets (a null row's too: usually none). */
  public static byte[] rawBytes(VarCharVector v, int i) {
    int begin = v.getOffsetBuffer().getInt(4L * i);
    int end = v.getOffsetBuffer().getInt(4L * (i + 1));
    byte[] b = new byte[end - begin];
    v.getDataBuffer().getBytes(begin, b);
    return b;
  }

  /** Segment matchers covering every shape: anchors, segments, both, equality, the empty pattern, adversarial KMP. */
  public static List<SegmentMatcher> handPicked() {
    List<SegmentMatcher> out = new ArrayList<>();
    out.add(SegmentMatcher.of(new byte[0], List.of(), new byte[0]));  // LIKE '%'
    out.add(SegmentMatcher.equalTo(new byte[0]));
    out.add(SegmentMatcher.equalTo(utf8("ab")));
    out.add(SegmentMatcher.equalTo(utf8("a pattern longer than eight bytes")));
    out.add(SegmentMatcher.startsWith(utf8("a")));
    out.add(SegmentMatcher.startsWith(utf8("aab")));
    out.add(SegmentMatcher.startsWith(utf8("a pattern longer")));
    out.add(SegmentMatcher.endsWith(utf8("b")));
    out.add(SegmentMatcher.endsWith(utf8("aaab")));
    out.add(SegmentMatcher.endsWith(utf8("日本")));
    out.add(SegmentMatcher.endsWith(utf8("a pattern longer than eight bytes")));
    out.add(SegmentMatcher.contains(utf8("ab")));
    out.add(SegmentMatcher.contains(utf8("aaaaaaab")));  // KMP's worst case over runs of 'a'
    out.add(SegmentMatcher.contains(utf8("abab")));
    out.add(SegmentMatcher.contains(utf8("😀b")));
    out.add(SegmentMatcher.contains(utf8("a pattern longer than eight bytes")));
    out.add(SegmentMatcher.of(new byte[0], List.of(utf8("green"), utf8("requests")), new byte[0]));
    out.add(SegmentMatcher.of(new byte[0], List.of(utf8("ab"), utf8("ab"), utf8("ba")), new byte[0]));
    out.add(SegmentMatcher.of(utf8("a"), List.of(utf8("b")), utf8("a")));
    out.add(SegmentMatcher.of(utf8("ab"), List.of(), utf8("ba")));  // anchors that must not overlap
    out.add(SegmentMatcher.of(utf8("aa"), List.of(utf8("aaab"), utf8("x")), utf8("b")));
    out.add(SegmentMatcher.of(utf8("a"), List.of(utf8("a"), utf8("a"), utf8("a"), utf8("a"), utf8("a")), new byte[0]));
    return out;
  }

  /** A segment matcher of random words: prefix and suffix each with probability 1/2, 0 to 3 segments. */
  public static SegmentMatcher randomSegments(Random rnd) {
    if (rnd.nextInt(8) == 0) return SegmentMatcher.equalTo(utf8(WORDS[rnd.nextInt(WORDS.length)]));
    byte[] prefix = rnd.nextBoolean() ? utf8(WORDS[rnd.nextInt(WORDS.length)]) : new byte[0];
    byte[] suffix = rnd.nextBoolean() ? utf8(WORDS[rnd.nextInt(WORDS.length)]) : new byte[0];
    List<byte[]> segments = new ArrayList<>();
    for (int i = rnd.nextInt(4); i > 0; i--) segments.add(utf8(WORDS[rnd.nextInt(WORDS.length)]));
    return SegmentMatcher.of(prefix, segments, suffix);
  }

  /**
   * The matcher mix the string tests share, in this order: the hand-picked segment matchers, {@code segments} random
   * ones, a random automaton per {@code {states, classes}} shape, and the search automaton of 'aaab'.
   */
  public static List<StringMatcher> matcherMix(Random rnd, int segments, int[]... dfaShapes) {
    List<StringMatcher> out = new ArrayList<>(handPicked());
    for (int i = 0; i < segments; i++) out.add(randomSegments(rnd));
    for (int[] shape : dfaShapes) out.add(randomDfa(rnd, shape[0], shape[1]));
    out.add(containsDfa(utf8("aaab")));
    return out;
  }

  /**
   * An automaton of random tables: random byte classes (classes mostly of letters 'a', 'b' and the rest, so the
   * columns' text walks it far), random transitions, a fifth of the states made sinks, random accepting states.
   */
  public static DfaMatcher randomDfa(Random rnd, int states, int classes) {
    byte[] classOf = new byte[256];
    for (int b = 0; b < 256; b++) classOf[b] = (byte) rnd.nextInt(classes);
    int[] next = new int[states * classes];
    boolean[] accepting = new boolean[states];
    for (int s = 0; s < states; s++) {
      boolean sink = rnd.nextInt(5) == 0;
      for (int c = 0; c < classes; c++) next[s * classes + c] = sink ? s : rnd.nextInt(states);
      accepting[s] = rnd.nextBoolean();
    }
    return new DfaMatcher(states, classes, classOf, next, rnd.nextInt(states), accepting, "random");
  }

  /** LIKE '%' + literal + '%' as a search automaton whose final state is an accepting sink: early exit on the find. */
  public static DfaMatcher containsDfa(byte[] literal) {
    int m = literal.length;
    // class 0: bytes not in the literal (they reset the search); one class per distinct literal byte
    int[] classOfByte = new int[256];
    byte[] representative = new byte[m + 1];
    int classes = 1;
    for (byte b : literal) {
      if (classOfByte[b & 0xff] == 0) {
        representative[classes] = b;
        classOfByte[b & 0xff] = classes++;
      }
    }
    byte[] classOf = new byte[256];
    for (int b = 0; b < 256; b++) classOf[b] = (byte) classOfByte[b];
    int[] next = new int[(m + 1) * classes];
    for (int s = 0; s <= m; s++) {
      for (int c = 0; c < classes; c++) {
        next[s * classes + c] = s == m ? m : c == 0 ? 0 : longestBorder(literal, s, representative[c]);
      }
    }
    boolean[] accepting = new boolean[m + 1];
    accepting[m] = true;
    return new DfaMatcher(m + 1, classes, classOf, next, 0, accepting,
        "contains '" + new String(literal, StandardCharsets.UTF_8) + "'");
  }

  /** The longest prefix of {@code p} that is a suffix of p[0, s) + b. */
  private static int longestBorder(byte[] p, int s, byte b) {
    byte[] t = Arrays.copyOf(p, s + 1);
    t[s] = b;
    for (int k = Math.min(p.length, s + 1); k > 0; k--) {
      if (Arrays.equals(t, s + 1 - k, s + 1, p, 0, k)) return k;
    }
    return 0;
  }

  /** PIVOTED computed from the destination side: every byte of every group's pieces, zero past each string. */
  static Layout expectedPivoted(VarCharVector v) {
    int rows = v.getValueCount();
    int groups = (rows + 31) / 32;
    long[] starts = new long[groups + 1];
    for (int g = 0; g < groups; g++) {
      int longest = 0;
      for (int l = 0; l < 32 && 32 * g + l < rows; l++) longest = Math.max(longest, rawBytes(v, 32 * g + l).length);
      starts[g + 1] = starts[g] + 256L * ((longest + 7) / 8);
    }
    byte[] data = new byte[Math.toIntExact(starts[groups])];
    for (int g = 0; g < groups; g++) {
      long pieces = (starts[g + 1] - starts[g]) / 256;
      for (int l = 0; l < 32; l++) {
        byte[] s = 32 * g + l < rows ? rawBytes(v, 32 * g + l) : new byte[0];
        for (int k = 0; k < pieces; k++) {
          for (int i = 0; i < 8; i++) {
            int b = 8 * k + i;
            data[(int) (starts[g] + (k * 32L + l) * 8 + i)] = b < s.length ? s[b] : 0;
          }
        }
      }
    }
    return new Layout(starts, data);
  }

  /** SELF_PIVOTED computed from the destination side: segment l's piece q of each row, zero past the string. */
  static Layout expectedSelfPivoted(VarCharVector v) {
    int rows = v.getValueCount();
    long[] starts = new long[rows + 1];
    for (int r = 0; r < rows; r++) {
      int n = rawBytes(v, r).length;
      int w = (int) Math.ceil(n / 32.0 / 8.0) * 8;
      starts[r + 1] = starts[r] + 32L * w;
    }
    byte[] data = new byte[Math.toIntExact(starts[rows])];
    for (int r = 0; r < rows; r++) {
      byte[] s = rawBytes(v, r);
      int w = (int) ((starts[r + 1] - starts[r]) / 32);
      for (int l = 0; l < 32; l++) {
        for (int q = 0; q < w / 8; q++) {
          for (int i = 0; i < 8; i++) {
            int b = l * w + 8 * q + i;
            data[(int) (starts[r] + (q * 32L + l) * 8 + i)] = b < s.length ? s[b] : 0;
          }
        }
      }
    }
    return new Layout(starts, data);
  }

  /** A layout's starts and data as host arrays. */
  record Layout(long[] starts, byte[] data) {
    static Layout download(Backend backend, PivotedStrings p, DeviceStream stream) {
      int count = (p.layout() == StringLayout.PIVOTED ? (p.rowCount() + 31) / 32 : p.rowCount()) + 1;
      byte[] raw = bytes(backend, p.starts(), 8L * count, stream);
      long[] starts = new long[count];
      for (int i = 0; i < count; i++) {
        long x = 0;
        for (int k = 7; k >= 0; k--) x = x << 8 | (raw[8 * i + k] & 0xff);
        starts[i] = x;
      }
      assertEquals(starts[count - 1], p.dataBytes(), "dataBytes is the last start");
      return new Layout(starts, bytes(backend, p.data(), p.dataBytes(), stream));
    }

    void assertEqualTo(Layout expected, String what) {
      assertArrayEquals(expected.starts, starts, "starts, " + what);
      assertArrayEquals(expected.data, data, "data, " + what);
    }
  }

  /** The first {@code n} bytes of a device buffer. */
  static byte[] bytes(Backend backend, DeviceBuffer buffer, long n, DeviceStream stream) {
    byte[] out = new byte[Math.toIntExact(n)];
    try (HostBlock host = backend.transferMemory().pool().allocate(Math.max(1, n))) {
      backend.copyDeviceToHost(buffer, 0, host.address(), n, stream);
      stream.synchronize();
      MemoryUtil.copyFromMemory(host.address(), out, 0, n);
    }
    return out;
  }

  /** Bits [0, rows) of a device bitmap. */
  public static boolean[] bits(Backend backend, DeviceBuffer bitmap, int rows, DeviceStream stream) {
    byte[] b = bytes(backend, bitmap, (rows + 7) / 8, stream);
    boolean[] out = new boolean[rows];
    for (int i = 0; i < rows; i++) out[i] = (b[i / 8] >> (i % 8) & 1) != 0;
    return out;
  }

  /** What {@code matcher.matches} says of each row (false for nulls): the definition every backend must meet. */
  public static boolean[] expected(VarCharVector v, StringMatcher matcher) {
    boolean[] out = new boolean[v.getValueCount()];
    for (int i = 0; i < out.length; i++) {
      if (v.isNull(i)) continue;
      byte[] s = rawBytes(v, i);
      out[i] = matcher.matches(s, 0, s.length);
    }
    return out;
  }

  /** The first row where two answers differ, for failure messages. */
  static String firstDifference(boolean[] expected, boolean[] actual, VarCharVector v) {
    for (int i = 0; i < expected.length; i++) {
      if (expected[i] != actual[i]) {
        return "row " + i + " '" + new String(rawBytes(v, i), StandardCharsets.UTF_8) + "' (" + rawBytes(v, i).length
            + " bytes): expected " + expected[i];
      }
    }
    return "none";
  }
}
