package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.strings.SegmentMatcher;
import io.sparkwarp.kernels.strings.StringMatcher;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The contains scan of {@code literal_scan.cuh} for a segment matcher without anchors ({@code LIKE '%s1%...%sk%'}) on
 * the plain layout: the warps stream the column's bytes looking for one literal, its longest segment. With one
 * segment that is the answer; with more it is a filter (a matching string holds every segment), and the lane
 * matcher then reads only the strings the scan kept. The scan runs at a few logic ops per byte where the lane-per-row
 * KMP_hybrid loop spends about ten dependent instructions on each (docs/PERFORMANCE.md).
 *
 * <p>Its launch parameters: the {@code ScanFilter} struct (the literal's first bytes and the two bytes the filter
 * compares, keep in step with literal_scan.cuh), the literal's bytes, the tile size and the shared memory.
 */
final class LiteralScan {
  /** SCAN_WINDOW_BYTES: the tile bytes one window of the per-warp bitmap covers. */
  static final int WINDOW_BYTES = 16384;
  /** SCAN_MAX_TILE_ROWS. */
  static final int MAX_TILE_ROWS = 512;
  /** scan_scratch::WORDS x 4: a warp's shared memory. */
  static final int SCRATCH_BYTES_PER_WARP = 4 * ((WINDOW_BYTES / 32 + 4) + (MAX_TILE_ROWS + 4) + 3 * (32 + 128));
  /** sizeof(ScanFilter). */
  static final int FILTER_BYTES = 40;
  /** English letters from the most to the least frequent: the filter compares the literal's rarest bytes. */
  private static final String LETTERS_BY_FREQUENCY = "etaoinsrhldcumfpgwybvkxjqz";

  private final byte[] literal;
  private final boolean decides;

  private LiteralScan(byte[] literal, boolean decides) {
    this.literal = literal;
    this.decides = decides;
  }

  /** The scan for {@code matcher}, or null unless it is an unanchored segment matcher. */
  static LiteralScan of(StringMatcher matcher) {
    if (!(matcher instanceof SegmentMatcher s) || !s.unanchored()) return null;
    byte[] longest = s.segments().get(0);
    for (byte[] segment : s.segments()) {
      if (segment.length > longest.length) longest = segment;
    }
    return new LiteralScan(longest, s.segmentCount() == 1);
  }

  /** Whether the scan's answer is the matcher's (one segment), rather than a filter ahead of the lane matcher. */
  boolean decides() {
    return decides;
  }

  /** The literal the scan looks for. */
  byte[] literal() {
    return literal.clone();
  }

  /** The literal's bytes, padded with zeros to a multiple of 16 (the kernel reads them from global memory). */
  byte[] literalBytes() {
    return Arrays.copyOf(literal, (literal.length + 15) / 16 * 16);
  }

  /**
   * The ScanFilter struct: head (the first min(m, 8) bytes, little-endian), head mask, the two compared bytes
   * broadcast to four, their positions x 8, m, padding. The compared bytes are the two rarest (by English letter
   * frequency; other bytes rank below letters) among the first four, so candidates stay few on text.
   */
  byte[] filter() {
    int m = literal.length;
    int near = 0;
    int far = 0;
    long best = Long.MAX_VALUE;
    for (int i = 0; i < Math.min(m, 4); i++) {
      for (int j = i + 1; j < Math.min(m, 4); j++) {
        long score = (long) frequency(literal[i]) * frequency(literal[j]);
        if (score < best) {
          best = score;
          near = i;
          far = j;
        }
      }
    }
    ByteBuffer b = ByteBuffer.allocate(FILTER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    long head = 0;
    for (int i = 0; i < Math.min(m, 8); i++) head |= (literal[i] & 0xffL) << (8 * i);
    b.putLong(head);
    b.putLong(m >= 8 ? -1L : (1L << (8 * m)) - 1);
    b.putInt(0x01010101 * (literal[near] & 0xff));
    b.putInt(0x01010101 * (literal[far] & 0xff));
    b.putInt(8 * near);
    b.putInt(8 * far);
    b.putInt(m);
    b.putInt(0);
    return b.array();
  }

  /** A rough frequency of a byte in text: space, then letters by English frequency, punctuation, digits, the rest. */
  static int frequency(byte value) {
    int c = value & 0xff;
    if (c == ' ') return 100;
    int letter = LETTERS_BY_FREQUENCY.indexOf(Character.toLowerCase((char) c));
    if (c < 0x80 && letter >= 0) return Character.isLowerCase((char) c) ? 90 - 3 * letter : 20;
    if (c == '.' || c == ',') return 40;
    if (c >= '0' && c <= '9') return 30;
    return c < 0x80 ? 10 : 5;
  }

  /**
   * Rows per warp tile for a column of {@code rows} rows and {@code bytes} string bytes: a multiple of 32 whose
   * average tile fills about 80% of a window (so most tiles take one window, whose per-row pass is the tile's fixed
   * cost), between 32 and {@link #MAX_TILE_ROWS}. The H200 measured 384 to 512 rows alike on 26-byte strings.
   */
  static int tileRows(long rows, long bytes) {
    double average = rows == 0 ? 1 : Math.max(1.0, (double) bytes / rows);
    long groups = (long) (0.8 * WINDOW_BYTES / average / 32);
    return (int) (32 * Math.max(1, Math.min(MAX_TILE_ROWS / 32, groups)));
  }
}
