package io.sparkwarp.parquet;

import io.sparkwarp.kernels.parquet.CompressedBlocks;
import io.sparkwarp.kernels.parquet.PageTable;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

/**
 * The device work of one batch: the blocks that decompress the uploaded column chunks (of every part of the batch)
 * into one pages buffer, and per column the table of its pages there; the pages of host codecs to inflate before the
 * upload; plus, for error messages, the owner of every block and page.
 */
final class BatchTables {
  /** Where a block or page comes from: the batch's part (its file), the column and the row group in that file. */
  record Owner(int part, int column, int rowGroup) {}

  /**
   * A page the reader thread inflates ({@link HostCodecs}): from the read column chunk at host address {@code from}
   * to {@code offset} of the batch's inflated bytes, which are uploaded after the read bytes.
   */
  record Inflation(CompressionCodecName codec, long from, long stored, long offset, long size, Owner owner) {}

  final CompressedBlocks blocks = new CompressedBlocks();
  final List<Inflation> inflations = new ArrayList<>();
  /** Where the inflated bytes start in the uploaded input: after the column chunks as read. */
  private final long inflatedBase;
  private long inflatedBytes;
  final PageTable[] tables;
  private final List<Owner> blockOwners = new ArrayList<>();
  /** Per column, per page. */
  private final List<List<Owner>> pageOwners = new ArrayList<>();
  private long pagesBytes;

  BatchTables(int[] maxDefinitions, long inflatedBase) {
    this.inflatedBase = inflatedBase;
    tables = new PageTable[maxDefinitions.length];
    for (int c = 0; c < tables.length; c++) {
      tables[c] = new PageTable(maxDefinitions[c]);
      pageOwners.add(new ArrayList<>());
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
  void addInflatedBlock(Owner owner, CompressionCodecName codec, long from, long stored, long target, long size) {
    inflations.add(new Inflation(codec, from, stored, inflatedBytes, size, owner));
    addBlock(owner, inflatedBase + inflatedBytes, size, target, size, CompressedBlocks.Codec.UNCOMPRESSED);
    inflatedBytes += size;
  }

  /** Bytes the queued inflations produce. */
  long inflatedBytes() {
    return inflatedBytes;
  }

  void addBlock(Owner owner, long source, long sourceBytes, long target, long targetBytes,
      CompressedBlocks.Codec codec) {
    blocks.add(source, sourceBytes, target, targetBytes, codec);
    blockOwners.add(owner);
  }

  /** Records the owner of the page just added to its column's table. */
  void pageAdded(Owner owner) {
    pageOwners.get(owner.column()).add(owner);
  }

  Owner blockOwner(int block) {
    return blockOwners.get(block);
  }

  Owner pageOwner(int column, int page) {
    return pageOwners.get(column).get(page);
  }
}
