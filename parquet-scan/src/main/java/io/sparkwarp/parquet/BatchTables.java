package io.sparkwarp.parquet;

import io.sparkwarp.kernels.parquet.CompressedBlocks;
import io.sparkwarp.kernels.parquet.PageTable;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.internal.filter2.columnindex.RowRanges;

/**
 * The device work of one batch: the blocks that decompress the uploaded column chunks (of every part of the batch)
 * into one pages buffer, and per column the table of its pages there and the rows of its decoded pages the batch
 * keeps (column indexes prune each column's pages on their own row spans); the pages of host codecs to inflate
 * before the upload; plus, for error messages, the owner of every block and page.
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
  /** Per column, the rows of its decoded pages the batch keeps: {start, length}, in order, adjacent ones merged. */
  private final List<List<long[]>> keptSlices = new ArrayList<>();
  private long skippedPages;

  BatchTables(int[] maxDefinitions, long inflatedBase) {
    this.inflatedBase = inflatedBase;
    tables = new PageTable[maxDefinitions.length];
    for (int c = 0; c < tables.length; c++) {
      tables[c] = new PageTable(maxDefinitions[c]);
      pageOwners.add(new ArrayList<>());
      keptSlices.add(new ArrayList<>());
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

  /**
   * Keeps the rows of the data page about to be added to column {@code column}'s table, which holds rows
   * [first, first + rows) of its row group: those in {@code kept} (null: all).
   */
  void keepRows(int column, long first, long rows, RowRanges kept) {
    long decoded = tables[column].rowCount();  // where the page's rows start in the decoded column
    if (kept == null) {
      keep(column, decoded, rows);
      return;
    }
    for (RowRanges.Range r : kept.getRanges()) {
      long from = Math.max(r.from, first);
      long to = Math.min(r.to, first + rows - 1);
      if (from <= to) keep(column, decoded + from - first, to - from + 1);
    }
  }

  private void keep(int column, long start, long length) {
    List<long[]> slices = keptSlices.get(column);
    long[] last = slices.isEmpty() ? null : slices.get(slices.size() - 1);
    if (last != null && last[0] + last[1] == start) {
      last[1] += length;
    } else {
      slices.add(new long[] {start, length});
    }
  }

  /** The rows of column {@code column}'s decoded pages the batch keeps, as {start, length} in order. */
  List<long[]> keptSlices(int column) {
    return keptSlices.get(column);
  }

  /** Rows the batch keeps of column {@code column}. */
  long keptRows(int column) {
    return keptSlices.get(column).stream().mapToLong(s -> s[1]).sum();
  }

  /** Counts a data page left out: none of its rows kept. */
  void pageSkipped() {
    skippedPages++;
  }

  long skippedPages() {
    return skippedPages;
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
