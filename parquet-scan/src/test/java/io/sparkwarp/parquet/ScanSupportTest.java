package io.sparkwarp.parquet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The planning check over many files, their footers read in parallel: the first file in order with a problem gives
 * the reason, whichever read finished first, and the codecs reader threads inflate are those of every file. Which
 * writers' DELTA_BYTE_ARRAY pages keep the scan on Spark's reader: parquet-mr before 1.8 carried a value's prefix
 * over a page boundary (PARQUET-246), which the device, decoding each page alone, would misread.
 */
class ScanSupportTest {
  private static final Set<CompressionCodecName> DEVICE = EnumSet.of(CompressionCodecName.SNAPPY);
  private static final Set<CompressionCodecName> HOST = EnumSet.of(CompressionCodecName.ZSTD);
  private final Random rnd = new Random();

  @TempDir
  java.nio.file.Path dir;

  @Test
  void theFirstFileInOrderWithAProblemIsTheReason() throws IOException {
    for (int round = 0; round < 5; round++) {
      List<Path> files = new ArrayList<>();
      int count = 20 + rnd.nextInt(40);
      int firstBad = rnd.nextInt(count);
      int gone = rnd.nextBoolean() ? firstBad : -1;  // the first problem a missing file, else a codec
      for (int i = 0; i < count; i++) {
        // after the first bad file, every third one is bad too: a later problem must not win
        boolean bad = i == firstBad || (i > firstBad && i % 3 == 0);
        CompressionCodecName codec = bad ? CompressionCodecName.GZIP
            : rnd.nextBoolean() ? CompressionCodecName.SNAPPY : CompressionCodecName.ZSTD;
        files.add(TestFiles.write(dir.resolve(round + "-" + i + ".parquet"), 1 + rnd.nextInt(50), false, true,
            codec, rnd).path);
      }
      List<ListedFile> listed = listed(files);
      if (gone >= 0) Files.delete(java.nio.file.Path.of(files.get(gone).toUri()));
      Optional<String> why = ScanSupport.check(Configuration::new, listed, TestFiles.COLUMNS, true, true, true, true,
          DEVICE, HOST).whyNot();
      assertTrue(why.isPresent());
      String expected = gone >= 0 ? "the footer of " + files.get(firstBad) + " could not be read"
          : "file " + files.get(firstBad) + ": codec GZIP";
      assertTrue(why.get().startsWith(expected), why.get() + " should start " + expected);
    }
  }

  @Test
  void everyFilesHostCodecsAreCounted() throws IOException {
    List<Path> files = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      files.add(TestFiles.write(dir.resolve("c" + i + ".parquet"), 1 + rnd.nextInt(50), false, true,
          i == 29 ? CompressionCodecName.ZSTD : CompressionCodecName.SNAPPY, rnd).path);
    }
    ScanSupport.Verdict verdict = check(files);
    assertEquals(Optional.empty(), verdict.whyNot());
    assertEquals(EnumSet.of(CompressionCodecName.ZSTD), verdict.hostDecompressed());
  }

  /**
   * A footer read for one plan serves the next while the file stays as listed; a file rewritten in place is read
   * again, so its new codec is the reason.
   */
  @Test
  void aFileRewrittenInPlaceIsCheckedAgain() throws IOException {
    java.nio.file.Path file = dir.resolve("rewritten.parquet");
    Path path = TestFiles.write(file, 40, false, true, CompressionCodecName.SNAPPY, rnd).path;
    assertEquals(Optional.empty(), check(List.of(path)).whyNot());
    AtomicInteger confs = new AtomicInteger();
    assertEquals(Optional.empty(), ScanSupport.check(() -> {
      confs.incrementAndGet();
      return new Configuration();
    }, listed(List.of(path)), TestFiles.COLUMNS, true, true, true, true, DEVICE, HOST).whyNot(),
        "checked again from the kept footer");
    assertEquals(0, confs.get(), "no Hadoop configuration made where no footer is read");
    long modified = Files.getLastModifiedTime(file).toMillis();
    Files.delete(file);
    TestFiles.write(file, 40, false, true, CompressionCodecName.GZIP, rnd);
    Files.setLastModifiedTime(file, java.nio.file.attribute.FileTime.fromMillis(modified + 1000));
    String why = check(List.of(path)).whyNot().orElseThrow();
    assertTrue(why.contains("codec GZIP"), why);
  }

  private static ScanSupport.Verdict check(List<Path> files) throws IOException {
    return ScanSupport.check(Configuration::new, listed(files), TestFiles.COLUMNS, true, true, true, true, DEVICE,
        HOST);
  }

  private static List<ListedFile> listed(List<Path> files) throws IOException {
    Configuration conf = new Configuration();
    List<ListedFile> listed = new ArrayList<>();
    for (Path file : files) listed.add(ListedFile.of(conf, file));
    return listed;
  }

  @Test
  void oldParquetMrCarriesDeltaPrefixesOverPages() {
    assertTrue(ScanSupport.deltaPrefixesCrossPages("parquet-mr version 1.7.0 (build 8ab3fa)"));
    assertTrue(ScanSupport.deltaPrefixesCrossPages("parquet-mr version 1.6.0"));
  }

  @Test
  void currentWritersDecodePageByPage() {
    assertFalse(ScanSupport.deltaPrefixesCrossPages("parquet-mr version 1.16.0 (build 0123456789abcdef)"));
    assertFalse(ScanSupport.deltaPrefixesCrossPages("parquet-cpp-arrow version 17.0.0"));
  }
}
