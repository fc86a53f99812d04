package io.sparkwarp.kernels.cuda;

/**
 * Lays several arrays out in one device allocation, each at a 256-byte boundary (what every allocation gets), so
 * work that needs many small arrays pays one allocation: sizes first, then offsets from the allocation's address.
 */
final class Carving {
  private long bytes;

  /** Where an array of {@code size} bytes starts. */
  long take(long size) {
    long at = bytes;
    bytes += (size + 255) & ~255L;
    return at;
  }

  /** Bytes to allocate for what was taken so far. */
  long bytes() {
    return bytes;
  }
}
