package io.sparkwarp.parquet;

import java.io.IOException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.FileMetaData.EncryptionType;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;

/**
 * Footers the planning check read, kept for the next plan over the same files: adaptive execution checks the plan
 * again as its stages finish, a plan with broadcasts is checked twice, and notebooks and dashboards query the same
 * tables again and again. Reading every footer each time was most of what the plugin added to Spark's planning
 * (docs/PERFORMANCE.md). A footer is kept under its file's path, length and modification time, so a file rewritten
 * in place is read again; files listed without a length or a time, and encrypted footers (parquet-mr decrypts
 * their columns' metadata lazily, which is not thread-safe), are not kept. The metadata of at most {@link
 * #MAX_CHUNKS} column chunks is kept, the least recently used footers going first. Thread-safe.
 */
final class FooterCache {
  /** About 0.5 KB each: tens of MB at most, thousands of files of tens of row groups. */
  static final long MAX_CHUNKS = 100_000;

  /** Reads a footer. */
  interface Read {
    ParquetMetadata footer() throws IOException;
  }

  private final long maxChunks;
  /** In access order: the first is the least recently used. */
  private final LinkedHashMap<ListedFile, ParquetMetadata> footers = new LinkedHashMap<>(16, 0.75f, true);
  private long chunks;

  FooterCache(long maxChunks) {
    this.maxChunks = maxChunks;
  }

  /** The footer of {@code file}: the one kept for it, else {@code read}'s, kept where it may be. */
  ParquetMetadata footer(ListedFile file, Read read) throws IOException {
    synchronized (this) {
      ParquetMetadata kept = footers.get(file);
      if (kept != null) return kept;
    }
    ParquetMetadata footer = read.footer();  // outside the lock: the check reads many footers at once
    long size = chunks(footer);
    if (file.length() <= 0 || file.modified() <= 0 || size > maxChunks || encrypted(footer)) return footer;
    synchronized (this) {
      if (footers.putIfAbsent(file, footer) == null) {
        chunks += size;
        for (Iterator<Map.Entry<ListedFile, ParquetMetadata>> lru = footers.entrySet().iterator();
            chunks > maxChunks && lru.hasNext(); ) {
          chunks -= chunks(lru.next().getValue());
          lru.remove();
        }
      }
    }
    return footer;
  }

  /** How many footers are kept: for tests. */
  synchronized int size() {
    return footers.size();
  }

  private static boolean encrypted(ParquetMetadata footer) {
    EncryptionType type = footer.getFileMetaData().getEncryptionType();  // null where made without one: plain
    return footer.getFileMetaData().getFileDecryptor() != null || (type != null && type != EncryptionType.UNENCRYPTED);
  }

  private static long chunks(ParquetMetadata footer) {
    long n = 0;
    for (BlockMetaData block : footer.getBlocks()) n += block.getColumns().size();
    return n;
  }
}
