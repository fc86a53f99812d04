package io.sparkwarp.parquet;

import io.sparkwarp.kernels.parquet.CompressedBlocks;
import io.sparkwarp.kernels.parquet.PageTable;
import java.util.ArrayList;
import java.util.List;

/**
 * The device work of one batch: the blocks that decompress the uploaded column chunks into one pages buffer, and
 * per column the table of its pages there; plus, for error messages, the column and row group of every block and
 * the row group of every page.
 */
final class BatchTables {
  final CompressedBlocks blocks = new CompressedBlocks();
  final PageTable[] tables;
  /** Per block: column index and row group index (within the batch's file). */
  private final List<int[]> blockOwners = new ArrayList<>();
  /** Per column, per page: row group index. */
  private final List<List<Integer>> pageRowGroups = new ArrayList<>();
  private long pagesBytes;

  BatchTables(int[] maxDefinitions) {
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
