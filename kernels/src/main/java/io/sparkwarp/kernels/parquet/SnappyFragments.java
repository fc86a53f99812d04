package io.sparkwarp.kernels.parquet;

/**
 * Which Snappy blocks of a decompression call the device decodes a warp per 64 KiB fragment of output instead of one
 * warp per block ({@code snappy_fragments.cuh}): Google's compressor, which snappy-java wraps, compresses in
 * independent fragments of that size, so a parquet-mr page of 1 MiB is 16 pieces of work instead of one serial
 * chain. The device checks that the fragments are independent and decodes the block whole where they are not.
 */
public final class SnappyFragments {
  /** Output bytes of a fragment (snappy_fragments.cuh: SNAPPY_FRAGMENT_BYTES). */
  public static final long FRAGMENT_BYTES = 65536;

  private SnappyFragments() {}

  /**
   * The first fragment slot of each block, {@code blocks.count() + 1} entries (the last the slot count): a slot per
   * fragment of every Snappy block of more than one, none for the other blocks. Null when no block has any, or when
   * the call has at least {@code parallelBlocks} blocks to split, enough to occupy the device a warp a block.
   */
  public static long[] firstSlots(CompressedBlocks blocks, long parallelBlocks) {
    int split = 0;
    for (int b = 0; b < blocks.count(); b++) {
      if (splits(blocks, b)) split++;
    }
    if (split == 0 || split >= parallelBlocks) return null;
    long[] first = new long[blocks.count() + 1];
    for (int b = 0; b < blocks.count(); b++) {
      long slots = splits(blocks, b) ? (blocks.targetBytes(b) + FRAGMENT_BYTES - 1) / FRAGMENT_BYTES : 0;
      first[b + 1] = first[b] + slots;
    }
    return first;
  }

  private static boolean splits(CompressedBlocks blocks, int b) {
    return blocks.codec(b) == CompressedBlocks.Codec.SNAPPY && blocks.targetBytes(b) > FRAGMENT_BYTES;
  }
}
