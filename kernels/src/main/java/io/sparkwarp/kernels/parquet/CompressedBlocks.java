package io.sparkwarp.kernels.parquet;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;

/**
 * What one decompression call does: for each block, a range of the input, a range of the output and a codec. Held
 * as {@link #WORDS} int64 words per block, the layout {@code parquet.cu} reads (BlockDesc).
 */
public final class CompressedBlocks {
  /** int64 words per block. */
  public static final int WORDS = 5;

  /**
   * How a block's bytes are stored (ordinals shared with parquet.cu): Parquet's codecs of those names, LZ4 being
   * Hadoop's framing of LZ4 blocks that parquet-mr writes, LZ4_RAW one LZ4 block, ZSTD one or more Zstandard frames.
   */
  public enum Codec { UNCOMPRESSED, SNAPPY, LZ4_RAW, LZ4, ZSTD }

  private long[] words = new long[WORDS * 16];
  private int count;

  /** Adds a block: {@code sourceBytes} from input offset {@code source} become {@code targetBytes} at {@code target}. */
  public CompressedBlocks add(long source, long sourceBytes, long target, long targetBytes, Codec codec) {
    if (source < 0 || sourceBytes < 0 || target < 0 || targetBytes < 0) {
      throw new IllegalArgumentException("negative block range");
    }
    if ((count + 1) * WORDS > words.length) words = Arrays.copyOf(words, words.length * 2);
    int w = count * WORDS;
    words[w] = source;
    words[w + 1] = sourceBytes;
    words[w + 2] = target;
    words[w + 3] = targetBytes;
    words[w + 4] = codec.ordinal();
    count++;
    return this;
  }

  public int count() {
    return count;
  }

  public long source(int block) {
    return words[block * WORDS];
  }

  public long sourceBytes(int block) {
    return words[block * WORDS + 1];
  }

  public long target(int block) {
    return words[block * WORDS + 2];
  }

  public long targetBytes(int block) {
    return words[block * WORDS + 3];
  }

  public Codec codec(int block) {
    return Codec.values()[(int) words[block * WORDS + 4]];
  }

  /** The codecs of the blocks. */
  public Set<Codec> codecs() {
    Set<Codec> codecs = EnumSet.noneOf(Codec.class);
    for (int b = 0; b < count; b++) codecs.add(codec(b));
    return codecs;
  }

  /** The table's words, {@link #WORDS} per block. */
  public long[] words() {
    return Arrays.copyOf(words, count * WORDS);
  }

  /**
   * Throws unless every block reads inside {@code inputBytes} and writes inside {@code outputBytes}: the device
   * kernels trust these ranges.
   */
  public void checkRanges(long inputBytes, long outputBytes) {
    for (int b = 0; b < count; b++) {
      if (source(b) + sourceBytes(b) > inputBytes || target(b) + targetBytes(b) > outputBytes) {
        throw new IllegalArgumentException("block " + b + " lies outside the input (" + inputBytes
            + " bytes) or the output (" + outputBytes + " bytes)");
      }
    }
  }
}
