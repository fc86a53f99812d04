package io.sparkwarp.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.ColumnPath;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.FileMetaData;
import org.apache.parquet.hadoop.metadata.FileMetaData.EncryptionType;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The planning check's footers: kept per file version, bounded by column chunks, least recently used out first. */
class FooterCacheTest {
  private final AtomicInteger reads = new AtomicInteger();

  @Test
  void aFileAsListedBeforeIsNotReadAgain() throws IOException {
    FooterCache cache = new FooterCache(100);
    ListedFile file = new ListedFile(new Path("/t/a.parquet"), 1000, 5);
    ParquetMetadata first = cache.footer(file, () -> footer(2));
    assertSame(first, cache.footer(file, () -> footer(2)));
    assertEquals(1, reads.get());
  }

  @Test
  void aWrittenFilesFooterIsKept(@TempDir java.nio.file.Path dir) throws IOException {
    Configuration conf = new Configuration();
    Path path = TestFiles.write(dir.resolve("f.parquet"), 30, false, true, CompressionCodecName.SNAPPY,
        new Random(1)).path;
    ListedFile file = ListedFile.of(conf, path);
    FooterCache cache = new FooterCache(100);
    ParquetMetadata read = cache.footer(file, () -> {
      reads.incrementAndGet();
      return ScanSupport.footer(conf, path);
    });
    assertSame(read, cache.footer(file, () -> footer(1)));
    assertEquals(1, reads.get());
  }

  @Test
  void anotherLengthOrTimeIsAnotherFile() throws IOException {
    FooterCache cache = new FooterCache(100);
    Path path = new Path("/t/a.parquet");
    cache.footer(new ListedFile(path, 1000, 5), () -> footer(2));
    cache.footer(new ListedFile(path, 1001, 5), () -> footer(2));
    cache.footer(new ListedFile(path, 1000, 6), () -> footer(2));
    assertEquals(3, reads.get());
  }

  @Test
  void whatCannotBeToldApartOrSharedIsNotKept() throws IOException {
    FooterCache cache = new FooterCache(100);
    Path path = new Path("/t/a.parquet");
    cache.footer(new ListedFile(path, 0, 5), () -> footer(1));  // no length listed
    cache.footer(new ListedFile(path, 1000, 0), () -> footer(1));  // no time listed
    ParquetMetadata encrypted = new ParquetMetadata(new FileMetaData(MessageTypeParser.parseMessageType(
        "message m { required int64 x; }"), Map.of(), "test", EncryptionType.ENCRYPTED_FOOTER, null), List.of());
    cache.footer(new ListedFile(path, 1000, 5), () -> encrypted);
    cache.footer(new ListedFile(new Path("/t/big.parquet"), 1000, 5), () -> footer(101));  // over the bound alone
    assertEquals(0, cache.size());
  }

  @Test
  void theLeastRecentlyUsedGoFirstPastTheBound() throws IOException {
    FooterCache cache = new FooterCache(10);
    ListedFile a = new ListedFile(new Path("/t/a"), 1, 1);
    ListedFile b = new ListedFile(new Path("/t/b"), 1, 1);
    ListedFile c = new ListedFile(new Path("/t/c"), 1, 1);
    cache.footer(a, () -> footer(4));
    cache.footer(b, () -> footer(4));
    cache.footer(a, () -> footer(4));  // a used after b
    cache.footer(c, () -> footer(4));  // 12 chunks: b goes
    assertEquals(2, cache.size());
    int before = reads.get();
    cache.footer(a, () -> footer(4));
    cache.footer(c, () -> footer(4));
    assertEquals(before, reads.get(), "a and c kept");
    cache.footer(b, () -> footer(4));
    assertEquals(before + 1, reads.get(), "b read again");
  }

  /** A footer of {@code chunks} column chunks in one row group, counted as a read. */
  private ParquetMetadata footer(int chunks) {
    reads.incrementAndGet();
    BlockMetaData block = new BlockMetaData();
    for (int i = 0; i < chunks; i++) {
      block.addColumn(ColumnChunkMetaData.get(ColumnPath.get("c" + i), PrimitiveTypeName.INT64,
          CompressionCodecName.SNAPPY, Set.of(Encoding.PLAIN), 4, 0, 10, 100, 100));
    }
    List<BlockMetaData> blocks = new ArrayList<>();
    blocks.add(block);
    return new ParquetMetadata(new FileMetaData(MessageTypeParser.parseMessageType("message m { required int64 c0; }"),
        Map.of(), "test"), blocks);
  }
}
