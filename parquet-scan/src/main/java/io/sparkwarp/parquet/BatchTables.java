package io.sparkwarp.parquet;

import io.sparkwarp.kernels.parquet.CompressedBlocks;
import io.sparkwarp.kernels.parquet.PageTable;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The device work of one batch: the blocks that decompress the uploaded column chunks into one pages buffer, and
 * per column the table of its pages there; the pages of host codecs to inflate before the upload; plus, for error
 * messages, the column and row group of every block and the row group of every page.
 */
final class BatchTables {
  /**
   * A page the reader thread inflates ({@link HostCodecs}): from the read column chunk at host address {@code from}
   * to {@code offset} of the batch's inflated bytes, which are uploaded after the read bytes.
   */
  record Inflation(CompressionCodecName codec, long from, long stored, long offset, long size, int column,
      int rowGroup) {}

  final CompressedBlocks blocks = new CompressedBlocks();
  final List<Inflation> inflations = new ArrayList<>();
  /** Where the inflated bytes start in the uploaded input: after the column chunks as read. */
  private final long inflatedBase;
  private long inflatedBytes;
  final PageTable[] tables;
  /** Per block: column index and row group index (within the batch's file). */
  private final List<int[]> blockOwners = new ArrayList<>();
  /** Per column, per page: row group index. */
  private final List<List<Integer>> pageRowGroups = new ArrayList<>();
  private long pagesBytes;

  BatchTables(int[] maxDefinitions, long inflatedBase) {
    this.inflatedBase = inflatedBase;
    tables = new PageTable[maxDefinitions.length];
    for (int c = 0; c < tables.length; c++) {
      tables[c] = new PageTable(maxDefinitions[c]);
      pageRowGroups.add(new ArrayList<>());
    }
  }

  /** Reserves {@code bytes} of the pages buffer; returns where they start. */
  long reservePages(long bytes) {
    long at = pagesBytes;
    pagesBytes += bytes;
    return at;
  }

  long pagesBytes() {
    return pagesBytes;
  }

  /**
   * Queues a page for inflation on the host and adds the device block that copies its inflated bytes to
   * {@code target} of the pages buffer.
   */
  void addInflatedBlock(int column, int rowGroup, CompressionCodecName codec, long from, long stored, long target,
      long size) {
    inflations.add(new Inflation(codec, from, stored, inflatedBytes, size, column, rowGroup));
    addBlock(column, rowGroup, inflatedBase + inflatedBytes, size, target, size, CompressedBlocks.Codec.UNCOMPRESSED);
    inflatedBytes += size;
  }

  /** Bytes the queued inflations produce. */
  long inflatedBytes() {
    return inflatedBytes;
  }

  void addBlock(int column, int rowGroup, long source, long sourceBytes, long target, long targetBytes,
      CompressedBlocks.Codec codec) {
    blocks.add(source, sourceBytes, target, targetBytes, codec);
    blockOwners.add(new int[] {column, rowGroup});
  }

  /** Records the row group of the page just added to column {@code column}'s table. */
  void pageAdded(int column, int rowGroup) {
    pageRowGroups.get(column).add(rowGroup);
  }

  int blockColumn(int block) {
    return blockOwners.get(block)[0];
  }

  int blockRowGroup(int block) {
    return blockOwners.get(block)[1];
  }

  int pageRowGroup(int column, int page) {
    return pageRowGroups.get(column).get(page);
  }
}
