package io.sparkwarp.parquet;

import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Whether a ZSTD page's frames carry content checksums (RFC 8878, 3.1.1). The device decoder does not verify them,
 * so a damaged page whose checksum would catch the damage could decode there into wrong values; such pages go to
 * the reader threads instead, whose zstd-jni verifies the checksum as Spark's reader does. Only the frame and block
 * headers are read, never the compressed contents.
 */
final class ZstdChecksums {
  private static final int MAGIC = 0xFD2FB528;
  /** Skippable frames have magics 0x184D2A50 to 0x184D2A5F. */
  private static final int SKIPPABLE_MAGIC = 0x184D2A50;
  private static final int CHECKSUM_FLAG = 1 << 2;
  private static final int SINGLE_SEGMENT_FLAG = 1 << 5;
  /** Bytes of the dictionary id by its flag, and of the content size by its flag (a single segment's 0 is 1 byte). */
  private static final int[] DICTIONARY_ID_BYTES = {0, 1, 2, 4};
  private static final int[] CONTENT_SIZE_BYTES = {0, 2, 4, 8};

  private ZstdChecksums() {}

  /**
   * Whether any frame of the {@code length} bytes at host {@code address} has a content checksum, or the headers
   * cannot be walked (a damaged page: the reader thread then raises the error zstd-jni finds).
   */
  static boolean present(long address, long length) {
    long at = 0;
    while (at < length) {
      if (length - at < 4) return true;
      int magic = MemoryUtil.getInt(address + at);
      at += 4;
      if ((magic & 0xFFFFFFF0) == SKIPPABLE_MAGIC) {
        if (length - at < 4) return true;
        at += 4 + (MemoryUtil.getInt(address + at) & 0xFFFFFFFFL);
        continue;
      }
      if (magic != MAGIC || at >= length) return true;
      int descriptor = MemoryUtil.getByte(address + at) & 0xFF;
      if ((descriptor & CHECKSUM_FLAG) != 0) return true;
      boolean singleSegment = (descriptor & SINGLE_SEGMENT_FLAG) != 0;
      int contentSizeFlag = descriptor >>> 6;
      int dictionaryIdFlag = descriptor & 3;
      at += 1 + (singleSegment ? 0 : 1) + DICTIONARY_ID_BYTES[dictionaryIdFlag]
          + (singleSegment && contentSizeFlag == 0 ? 1 : CONTENT_SIZE_BYTES[contentSizeFlag]);
      boolean last = false;
      while (!last) {
        if (length - at < 3) return true;
        int header = (MemoryUtil.getByte(address + at) & 0xFF) | (MemoryUtil.getByte(address + at + 1) & 0xFF) << 8
            | (MemoryUtil.getByte(address + at + 2) & 0xFF) << 16;
        at += 3;
        last = (header & 1) != 0;
        int type = (header >>> 1) & 3;
        if (type == 3) return true;  // reserved
        at += type == 1 ? 1 : header >>> 3;  // an RLE block stores one byte
      }
      if (at > length) return true;
    }
    return false;
  }
}
