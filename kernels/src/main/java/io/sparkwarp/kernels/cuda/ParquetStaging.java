package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.parquet.CompressedBlocks;
import io.sparkwarp.kernels.parquet.PageTable;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * What one batch's decoding stages through pinned memory, laid out alike on the host and the device so it crosses
 * PCIe in one upload and comes back in one download: the blocks' table (and the Snappy fragments' first slots after
 * it) and each column's page table, then every status word and each column's string byte total, zeroed going up.
 */
final class ParquetStaging {
  /** Offsets of one column's page table, status words and string byte total. */
  record Column(long table, long status, long total) {}

  private final long[][] tables;
  private final long[] tableAt;
  private final long blockTable;
  private final long firstSlots;
  private final long statuses;
  private final long blockStatus;
  private final List<Column> columns = new ArrayList<>();
  private final long bytes;

  /** @param firstSlots each block's first fragment slot (count + 1 entries), or null when no block is split */
  ParquetStaging(CompressedBlocks blocks, long[] firstSlots, List<PageTable> pageTables) {
    Carving carving = new Carving();
    tables = new long[pageTables.size() + 2][];
    tableAt = new long[tables.length];
    tables[0] = blocks.words();
    tables[1] = firstSlots == null ? new long[0] : firstSlots;
    for (int c = 0; c < pageTables.size(); c++) tables[c + 2] = pageTables.get(c).words();
    for (int t = 0; t < tables.length; t++) tableAt[t] = carving.take(8L * tables[t].length);
    blockTable = tableAt[0];
    this.firstSlots = firstSlots == null ? 0 : tableAt[1];
    statuses = carving.bytes();
    blockStatus = carving.take(4L * blocks.count());
    for (int c = 0; c < pageTables.size(); c++) {
      long status = carving.take(4L * pageTables.get(c).count());
      columns.add(new Column(tableAt[c + 2], status, carving.take(8)));
    }
    bytes = carving.bytes();
  }

  /** Writes the tables and zeroed statuses to pinned memory at {@code address}. */
  void write(long address) {
    for (int t = 0; t < tables.length; t++) {
      for (int i = 0; i < tables[t].length; i++) MemoryUtil.putLong(address + tableAt[t] + 8L * i, tables[t][i]);
    }
    MemoryUtil.setMemory(address + statuses, bytes - statuses, (byte) 0);
  }

  long bytes() {
    return bytes;
  }

  long blockTable() {
    return blockTable;
  }

  /** The fragments' first slots; 0 when no block is split (the kernels take a null pointer then). */
  long firstSlots() {
    return firstSlots;
  }

  /** Where the part that comes back (the statuses and totals) starts. */
  long statuses() {
    return statuses;
  }

  long blockStatus() {
    return blockStatus;
  }

  Column column(int c) {
    return columns.get(c);
  }
}
