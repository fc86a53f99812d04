package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.parquet.DecodeError;

/**
 * Reference of {@code delta_byte_array.cuh}: Parquet's DELTA_LENGTH_BYTE_ARRAY (lengths DELTA_BINARY_PACKED, then the
 * bytes) and DELTA_BYTE_ARRAY (the lengths each value shares with the one before, then the rest of each value as
 * DELTA_LENGTH_BYTE_ARRAY) located value by value, with the same checks in the same order. Entries of value i go to
 * index {@code at + i} of the arrays; starts are offsets from {@code pages}.
 */
final class HostDeltaByteArray {
  private HostDeltaByteArray() {}

  /** Non-negative 32-bit lengths from pages[pos[0], end) into lengths[at + i]; pos[0] moves past them. */
  private static DecodeError decodeLengths(long pages, long end, long[] pos, long count, int[] lengths, int at) {
    HostBytes in = new HostBytes(pages + pos[0], end - pos[0]);
    boolean[] bad = new boolean[1];
    DecodeError err = HostDeltaBinaryPacked.decode(in, count, (i, v) -> {
      bad[0] |= (int) v < 0;
      lengths[at + (int) i] = (int) v;
    });
    if (err != DecodeError.NONE) return err;
    if (bad[0]) return DecodeError.BAD_LENGTH;
    pos[0] += in.position();
    return DecodeError.NONE;
  }

  /** DELTA_LENGTH_BYTE_ARRAY at pages[pos[0], end): lengths and starts of the values; pos[0] ends after them. */
  static DecodeError lengthPrefixed(long pages, long end, long[] pos, long count, int[] lengths, int[] starts,
      int at) {
    DecodeError err = decodeLengths(pages, end, pos, count, lengths, at);
    if (err != DecodeError.NONE) return err;
    long next = pos[0];
    for (int i = 0; i < count; i++) {
      starts[at + i] = (int) next;
      next += lengths[at + i];
    }
    if (next > end) return DecodeError.TRUNCATED;
    pos[0] = next;
    return DecodeError.NONE;
  }

  /**
   * DELTA_BYTE_ARRAY at pages[pos, end): each value's prefix length, whole length and suffix start. A prefix is never
   * longer than the value before, and the first one is 0 (pages decode alone).
   */
  static DecodeError prefixed(long pages, long end, long pos, long count, int[] prefixes, int[] lengths, int[] starts,
      int at) {
    long[] p = {pos};
    DecodeError err = decodeLengths(pages, end, p, count, prefixes, at);
    if (err == DecodeError.NONE) err = lengthPrefixed(pages, end, p, count, lengths, starts, at);
    if (err != DecodeError.NONE) return err;
    long before = 0;
    boolean bad = false;
    for (int i = 0; i < count; i++) {
      long whole = prefixes[at + i] + (long) lengths[at + i];
      bad |= prefixes[at + i] > before;
      lengths[at + i] = (int) whole;
      before = whole;
    }
    return bad ? DecodeError.BAD_LENGTH : DecodeError.NONE;
  }
}
