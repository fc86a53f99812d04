package io.sparkwarp.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.Backends;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceOutOfMemoryException;
import io.sparkwarp.kernels.testing.BackendTestBase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.filter2.compat.FilterCompat;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.filter2.predicate.Operators;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.ParquetInputFormat;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scan's host side with the reference backend, over files parquet-mr writes in every shape: every row as
 * written, whole files and files cut into splits; batches spanning files, only of files that decode alike and of
 * splits of equal merge keys; flipped page bytes, or a file
 * gone, raise an error naming the file, also among the files of one batch.
 */
class ParquetBatchReaderTest extends BackendTestBase {
  /** What the device decompresses (or, settings taking it off, reader threads), then what only reader threads do. */
  private static final List<CompressionCodecName> CODECS = List.of(CompressionCodecName.UNCOMPRESSED,
      CompressionCodecName.SNAPPY, CompressionCodecName.LZ4, CompressionCodecName.LZ4_RAW, CompressionCodecName.GZIP,
      CompressionCodecName.ZSTD);
  private final Random rnd = new Random();
  /** Page checksums verified (parquet-mr's setting, off by default): the flipped-byte tests count on them. */
  private final Configuration conf = verifying(true);

  @TempDir
  Path dir;

  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  @Test
  void everyShapeReadsAsWritten() throws Exception {
    int index = 0;
    for (boolean v2 : new boolean[] {false, true}) {
      for (boolean dictionary : new boolean[] {false, true}) {
        for (CompressionCodecName codec : CODECS) {
          TestFiles f = TestFiles.write(dir.resolve("f" + index++ + ".parquet"), rnd.nextInt(6000), v2, dictionary,
              codec, rnd);
          Optional<String> why = ScanSupport.check(() -> conf, List.of(ListedFile.of(conf, f.path)), TestFiles.COLUMNS,
              true, true, true, false, DeviceCodecs.SUPPORTED, HostCodecs.SUPPORTED).whyNot();
          String shape = (v2 ? "v2" : "v1") + (dictionary ? " dictionary " : " plain ") + codec;
          // page v2 stores integers DELTA_BINARY_PACKED, strings and decimals DELTA_BYTE_ARRAY once off dictionary
          assertEquals(Optional.empty(), why, shape);
          assertRows(f.rows, read(cut(f.path, Long.MAX_VALUE)), shape);
          List<FileSplit> splits = cut(f.path, 1 + rnd.nextInt((int) length(f.path)));
          assertRows(f.rows, read(splits), shape + " in " + splits.size() + " splits");
        }
      }
    }
  }

  @Test
  void lz4PagesPastHadoopsBufferReadAsWritten() throws Exception {
    // pages of 1 MiB: parquet-mr's LZ4 (Hadoop's BlockCompressorStream, a 256 KiB buffer) splits each into several
    // LZ4 blocks of one framed block, then writes an empty one
    TestFiles f = TestFiles.write(dir.resolve("big.parquet"), 60_000, rnd.nextBoolean(), false,
        CompressionCodecName.LZ4, 1 << 20, 64 << 20, rnd);
    assertRows(f.rows, read(cut(f.path, Long.MAX_VALUE)), "LZ4 pages of 1 MiB");
  }

  @Test
  void flippedPageBytesRaiseNamingTheFile() throws Exception {
    for (int round = 0; round < 40; round++) {
      TestFiles f = TestFiles.write(dir.resolve("c.parquet"), 1 + rnd.nextInt(3000), false, rnd.nextBoolean(),
          CODECS.get(rnd.nextInt(CODECS.size())), rnd);
      long length = PageRegions.flipBit(f.path, rnd);
      try {
        read(List.of(new FileSplit(f.path.toUri().toString(), 0, length))).forEach(r -> { });
        fail("a flipped bit in page data was not found (checksums are on)");
      } catch (CorruptParquetException e) {
        assertTrue(e.getMessage().contains(f.path.toString()), e.getMessage());
      }
    }
  }

  /**
   * A flipped byte in a page of a file without Hadoop's checksum file: its page checksum fails the read only where
   * parquet-mr's parquet.page.verify-checksum.enabled asks for it, as Spark's reader (off by default); otherwise the
   * pages decode or fail for what the byte broke, never for the checksum.
   */
  @Test
  void pageChecksumsAreVerifiedWhereAsked() throws Exception {
    for (int round = 0; round < 10; round++) {
      TestFiles f = TestFiles.write(dir.resolve("k.parquet"), 1 + rnd.nextInt(3000), false, false,
          CompressionCodecName.UNCOMPRESSED, rnd);
      Path file = Path.of(f.path.toUri());
      Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));
      long length = PageRegions.flipBit(f.path, rnd);
      List<FileSplit> splits = List.of(new FileSplit(f.path.toUri().toString(), 0, length));
      CorruptParquetException verified = assertThrows(CorruptParquetException.class, () -> read(backend, stream,
          splits, new int[1], Long.MAX_VALUE, TestFiles.COLUMNS, RowGroupPredicate.NONE, verifying(true)));
      assertTrue(verified.getMessage().contains("checksum"), verified.getMessage());
      try {
        read(backend, stream, splits, new int[1], Long.MAX_VALUE, TestFiles.COLUMNS, RowGroupPredicate.NONE,
            verifying(false));
      } catch (CorruptParquetException e) {
        assertFalse(e.getMessage().contains("checksum"), e.getMessage());
      }
    }
  }

  private static Configuration verifying(boolean pageChecksums) {
    Configuration conf = new Configuration();
    conf.setBoolean(ParquetInputFormat.PAGE_VERIFY_CHECKSUM_ENABLED, pageChecksums);
    return conf;
  }

  @Test
  void smallFilesShareBatches() throws Exception {
    List<Object[]> written = new ArrayList<>();
    List<FileSplit> splits = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      // codecs and encodings may differ between the files of a batch: each page says how it is stored
      TestFiles f = TestFiles.write(dir.resolve("s" + i + ".parquet"), rnd.nextInt(400), false, rnd.nextBoolean(),
          CODECS.get(rnd.nextInt(CODECS.size())), rnd);
      written.addAll(f.rows);
      splits.addAll(cut(f.path, 1 + rnd.nextInt((int) length(f.path))));
    }
    Batches whole = read(splits, new int[splits.size()], Long.MAX_VALUE, TestFiles.COLUMNS);
    assertEquals(1, whole.count(), "batches of 20 small files");
    assertRows(written, whole.rows(), "20 files in one batch");
    for (int round = 0; round < 5; round++) {
      long batchBytes = 1 + rnd.nextInt(400_000);
      Batches some = read(splits, new int[splits.size()], batchBytes, TestFiles.COLUMNS);
      assertRows(written, some.rows(), "20 files in batches of " + batchBytes + " bytes");
    }
  }

  @Test
  void filesThatDecodeDifferentlyNeverShareABatch() throws Exception {
    // the scan's long column v: an int32 in some files, an int64, missing, or a required int32 in others
    String[] schemas = {"optional int32 v;", "optional int64 v;", "", "required int32 v;"};
    int[] order = {0, 0, 1, 1, 2, 0, 3, 3, 0, 2, 2};
    List<ScanColumn> columns = List.of(new ScanColumn("id", DeviceType.LONG), new ScanColumn("v", DeviceType.LONG));
    List<Object[]> written = new ArrayList<>();
    List<FileSplit> splits = new ArrayList<>();
    for (int i = 0; i < order.length; i++) {
      MessageType schema = MessageTypeParser.parseMessageType("message m { required int64 id; " + schemas[order[i]]
          + " }");
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(dir.resolve("t" + i + ".parquet").toUri());
      try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(file).withType(schema).build()) {
        SimpleGroupFactory groups = new SimpleGroupFactory(schema);
        String v = schemas[order[i]];
        for (int r = 1 + rnd.nextInt(300); r > 0; r--) {
          Group g = groups.newGroup().append("id", (long) written.size());
          Long value = v.isEmpty() || (v.startsWith("optional") && rnd.nextInt(5) == 0) ? null
              : v.contains("int64") ? rnd.nextLong() : (long) rnd.nextInt();
          if (value != null && v.contains("int64")) {
            g.append("v", value.longValue());
          } else if (value != null) {
            g.append("v", value.intValue());
          }
          writer.write(g);
          written.add(new Object[] {(long) written.size(), value});
        }
      }
      splits.addAll(cut(file, 1 + rnd.nextInt((int) length(file))));
    }
    Batches all = read(splits, new int[splits.size()], Long.MAX_VALUE, columns);
    assertEquals(7, all.count(), "batches: one per run of files that decode alike");
    assertRows(written, all.rows(), columns, "files of four decodings");
  }

  @Test
  void unsigned64BitIntegersAndNanosecondTimestampsReadAsSparkReadsThem() throws Exception {
    // UINT_64 as decimal(20,0) (2^63 and more too), TIMESTAMP(NANOS) as longs: in a dictionary file and a PLAIN one
    MessageType schema = MessageTypeParser.parseMessageType("message m { optional int64 u64 (INTEGER(64,false)); "
        + "optional int64 ns (TIMESTAMP(NANOS,true)); }");
    List<ScanColumn> columns = List.of(new ScanColumn("u64", DeviceType.decimal(20, 0)),
        new ScanColumn("ns", DeviceType.LONG));
    List<Object[]> written = new ArrayList<>();
    List<FileSplit> splits = new ArrayList<>();
    for (boolean dictionary : new boolean[] {true, false}) {
      org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(dir.resolve("u" + dictionary + ".parquet").toUri());
      try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(file).withType(schema)
          .withDictionaryEncoding(dictionary).build()) {
        SimpleGroupFactory groups = new SimpleGroupFactory(schema);
        for (int r = 0; r < 500; r++) {
          Group g = groups.newGroup();
          long[] edges = {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, rnd.nextLong()};
          Long u = rnd.nextInt(8) == 0 ? null : edges[rnd.nextInt(edges.length)];
          Long ns = rnd.nextInt(8) == 0 ? null : rnd.nextLong();
          if (u != null) g.append("u64", u.longValue());
          if (ns != null) g.append("ns", ns.longValue());
          writer.write(g);
          written.add(new Object[] {u == null ? null : new BigInteger(Long.toUnsignedString(u)), ns});
        }
      }
      List<ListedFile> listed = List.of(ListedFile.of(conf, file));
      assertTrue(ScanSupport.check(() -> conf, listed, columns, true, true, true, false, DeviceCodecs.SUPPORTED,
          HostCodecs.SUPPORTED).whyNot().orElseThrow().contains("spark.sql.legacy.parquet.nanosAsLong=true"));
      assertEquals(Optional.empty(), ScanSupport.check(() -> conf, listed, columns, true, true, true, true,
          DeviceCodecs.SUPPORTED, HostCodecs.SUPPORTED).whyNot());
      splits.add(new FileSplit(file.toUri().toString(), 0, length(file)));
    }
    assertRows(written, read(splits, new int[splits.size()], Long.MAX_VALUE, columns).rows(), columns,
        "unsigned and nanosecond columns");
  }

  @Test
  void columnIndexesKeepTheRowsParquetMrKeeps() throws Exception {
    // a fixed seed: some random files (a dictionary of up to 100,000 strings in 12 KB row groups) put most of a row
    // group's bytes in its dictionary pages, which a single id's pages need too (CI failed on one: 1,671 of 2,937)
    Random rnd = new Random(2026);
    // sorted ids, and columns of other widths whose pages end elsewhere: each column's pages cover their own rows
    MessageType schema = MessageTypeParser.parseMessageType("message m { required int64 id; optional int32 i; "
        + "optional binary s (STRING); optional double d; }");
    List<ScanColumn> columns = List.of(new ScanColumn("id", DeviceType.LONG), new ScanColumn("i", DeviceType.INT),
        new ScanColumn("s", DeviceType.STRING), new ScanColumn("d", DeviceType.DOUBLE));
    org.apache.hadoop.fs.Path file = new org.apache.hadoop.fs.Path(dir.resolve("sorted.parquet").toUri());
    int rows = 3000;
    try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(file).withType(schema)
        .withDictionaryEncoding(rnd.nextBoolean()).withPageSize(512).withPageRowCountLimit(40 + rnd.nextInt(100))
        .withRowGroupSize(12 * 1024).withCompressionCodec(CompressionCodecName.SNAPPY).build()) {
      SimpleGroupFactory groups = new SimpleGroupFactory(schema);
      for (long id = 0; id < rows; id++) {
        Group g = groups.newGroup().append("id", id);
        if (rnd.nextInt(6) > 0) g.append("i", rnd.nextInt());
        if (rnd.nextInt(6) > 0) g.append("s", "v" + rnd.nextInt(rnd.nextBoolean() ? 20 : 100_000));
        if (rnd.nextInt(6) > 0) g.append("d", rnd.nextDouble());
        writer.write(g);
      }
    }
    List<FileSplit> splits = List.of(new FileSplit(file.toUri().toString(), 0, length(file)));
    long a = rnd.nextInt(rows);
    long b = a + rnd.nextInt(rows / 4);
    Operators.LongColumn id = FilterApi.longColumn("id");
    List<FilterPredicate> filters = List.of(FilterApi.and(FilterApi.gtEq(id, a), FilterApi.lt(id, b)),
        FilterApi.or(FilterApi.lt(id, a / 3), FilterApi.gt(id, b)), FilterApi.eq(id, a),
        FilterApi.gt(id, (long) rows), FilterApi.gtEq(id, 0L),
        FilterApi.eq(FilterApi.binaryColumn("s"), Binary.fromString("v7")));
    long skipped = 0;
    Map<FilterPredicate, Long> uploadedByPages = new HashMap<>();
    for (boolean columnIndexes : new boolean[] {true, false}) {
      Configuration withIndexes = new Configuration(conf);
      withIndexes.setBoolean("parquet.filter.columnindex.enabled", columnIndexes);
      for (FilterPredicate filter : filters) {
        Batches read = read(backend, stream, splits, new int[1], 1 + rnd.nextInt(64 * 1024), columns,
            fileSchema -> Optional.of(filter), withIndexes);
        assertRows(parquetMrRows(file, filter, withIndexes), read.rows(), columns, filter + " indexes "
            + columnIndexes);
        if (!columnIndexes) assertEquals(0, read.skippedPages(), filter.toString());
        skipped += read.skippedPages();
        // a single id: a page a column and the dictionaries, far less than the chunks of its row group
        if (columnIndexes) uploadedByPages.put(filter, read.uploaded());
        if (!columnIndexes && filter.toString().startsWith("eq(id")) {
          assertTrue(uploadedByPages.get(filter) < read.uploaded() / 2, uploadedByPages.get(filter)
              + " bytes uploaded by pages, " + read.uploaded() + " by chunks");
        }
      }
    }
    assertTrue(skipped > 0, "no page was skipped");
  }

  /** The rows parquet-mr's reader reads with {@code filter}: whole rows of the row ranges it keeps, unfiltered. */
  private static List<Object[]> parquetMrRows(org.apache.hadoop.fs.Path file, FilterPredicate filter,
      Configuration conf) throws IOException {
    List<Object[]> rows = new ArrayList<>();
    try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(), file).withConf(conf)
        .withFilter(FilterCompat.get(filter)).useRecordFilter(false).build()) {
      for (Group g = reader.read(); g != null; g = reader.read()) {
        rows.add(new Object[] {g.getLong("id", 0), g.getFieldRepetitionCount("i") == 0 ? null : (long) g.getInteger("i", 0),
            g.getFieldRepetitionCount("s") == 0 ? null : g.getBinary("s", 0).getBytes(),
            g.getFieldRepetitionCount("d") == 0 ? null : Double.doubleToRawLongBits(g.getDouble("d", 0))});
      }
    }
    return rows;
  }

  @Test
  void splitsOfDifferentMergeKeysNeverShareABatch() throws Exception {
    int[] fileKeys = {0, 0, 1, 1, 1, 0, 2, 0};
    List<Object[]> written = new ArrayList<>();
    List<FileSplit> splits = new ArrayList<>();
    List<Integer> keys = new ArrayList<>();
    for (int i = 0; i < fileKeys.length; i++) {
      TestFiles f = TestFiles.write(dir.resolve("k" + i + ".parquet"), 1 + rnd.nextInt(400), false, true,
          CompressionCodecName.SNAPPY, rnd);
      written.addAll(f.rows);
      for (FileSplit split : cut(f.path, 1 + rnd.nextInt((int) length(f.path)))) {
        splits.add(split);
        keys.add(fileKeys[i]);
      }
    }
    Batches all = read(splits, keys.stream().mapToInt(Integer::intValue).toArray(), Long.MAX_VALUE,
        TestFiles.COLUMNS);
    assertEquals(5, all.count(), "batches: one per run of equal keys");
    assertRows(written, all.rows(), "files of keys " + Arrays.toString(fileKeys));
  }

  @Test
  void aFlippedByteInOneFileOfABatchNamesThatFile() throws Exception {
    for (int round = 0; round < 20; round++) {
      List<TestFiles> files = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        files.add(TestFiles.write(dir.resolve("m" + i + ".parquet"), 1 + rnd.nextInt(2000), false, rnd.nextBoolean(),
            CODECS.get(rnd.nextInt(CODECS.size())), rnd));
      }
      TestFiles bad = files.get(2);
      Path file = Path.of(bad.path.toUri());
      PageRegions.flipBit(bad.path, rnd);
      if (round % 2 == 1) {  // without Hadoop's own checksum of the file, the page checksums find it
        Files.deleteIfExists(file.resolveSibling("." + file.getFileName() + ".crc"));
      }
      List<FileSplit> splits = files.stream().flatMap(f -> cut(f.path, Long.MAX_VALUE).stream()).toList();
      try {
        read(splits, new int[splits.size()], Long.MAX_VALUE, TestFiles.COLUMNS);
        fail("a flipped bit in page data was not found (checksums are on)");
      } catch (CorruptParquetException e) {
        for (TestFiles f : files) {
          assertEquals(f == bad, e.getMessage().contains(f.path.toString()), f.path + " in " + e.getMessage());
        }
      }
    }
  }

  @Test
  void aFileOfABatchThatCannotBeReadIsNamed() throws Exception {
    List<FileSplit> splits = new ArrayList<>();
    List<TestFiles> files = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      files.add(TestFiles.write(dir.resolve("g" + i + ".parquet"), 1 + rnd.nextInt(2000), false, true,
          CompressionCodecName.SNAPPY, rnd));
      splits.addAll(cut(files.get(i).path, Long.MAX_VALUE));
    }
    ScanSettings settings = new ScanSettings(Long.MAX_VALUE, 4, true, RowGroupPredicate.NONE, DeviceCodecs.SUPPORTED,
        HostCodecs.SUPPORTED);
    try (ParquetBatchReader reader = new ParquetBatchReader(backend, stream, conf, splits, new int[splits.size()],
        TestFiles.COLUMNS, settings, () -> { })) {
      assertTrue(reader.hasNext());  // planned: the footers are read
      Files.delete(Path.of(files.get(2).path.toUri()));
      CorruptParquetException e = assertThrows(CorruptParquetException.class, reader::next);
      assertTrue(e.getMessage().startsWith("cannot read parquet file " + files.get(2).path), e.getMessage());
    }
  }

  @Test
  void aBatchTheDeviceHasNoRoomForIsReadInHalves() throws Exception {
    List<Object[]> written = new ArrayList<>();
    List<FileSplit> splits = new ArrayList<>();
    long onePeak = 0;  // device memory the batch of one file needs
    for (int i = 0; i < 8; i++) {
      TestFiles f = TestFiles.write(dir.resolve("m" + i + ".parquet"), 200 + rnd.nextInt(200), false,
          rnd.nextBoolean(), CompressionCodecName.SNAPPY, rnd);
      written.addAll(f.rows);
      List<FileSplit> file = List.of(new FileSplit(f.path.toUri().toString(), 0, length(f.path)));
      splits.addAll(file);
      try (Backend alone = Backends.open(BackendKind.HOST, BackendOptions.defaults());
          DeviceStream s = alone.newStream()) {
        read(alone, s, file, new int[1], Long.MAX_VALUE, TestFiles.COLUMNS);
        onePeak = Math.max(onePeak, alone.deviceMemory().peakBytes());
      }
    }
    // room for a file or two, not for the batch of all eight: halves of halves, every row in order
    try (Backend small = Backends.open(BackendKind.HOST, BackendOptions.defaults().withDeviceMemoryLimit(2 * onePeak));
        DeviceStream s = small.newStream()) {
      Batches halves = read(small, s, splits, new int[splits.size()], Long.MAX_VALUE, TestFiles.COLUMNS);
      assertTrue(halves.halved() >= 2 && halves.count() >= 4, halves.halved() + " halved, " + halves.count()
          + " batches");
      assertRows(written, halves.rows(), "eight files read in halves");
    }
    // no room for one row group: the error, not fewer rows
    try (Backend tiny = Backends.open(BackendKind.HOST, BackendOptions.defaults().withDeviceMemoryLimit(onePeak / 4));
        DeviceStream s = tiny.newStream()) {
      assertThrows(DeviceOutOfMemoryException.class,
          () -> read(tiny, s, splits, new int[splits.size()], Long.MAX_VALUE, TestFiles.COLUMNS));
    }
  }

  @Test
  void emptyFileHasNoBatches() throws Exception {
    TestFiles f = TestFiles.write(dir.resolve("e.parquet"), 0, false, true, CompressionCodecName.SNAPPY, rnd);
    assertEquals(0, read(List.of(new FileSplit(f.path.toUri().toString(), 0,
        Files.size(Path.of(f.path.toUri()))))).size());
  }

  private static long length(org.apache.hadoop.fs.Path file) {
    try {
      return Files.size(Path.of(file.toUri()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The file cut into splits of {@code step} bytes. */
  private static List<FileSplit> cut(org.apache.hadoop.fs.Path file, long step) {
    long length = length(file);
    List<FileSplit> splits = new ArrayList<>();
    for (long at = 0; at < length; at += step) {
      splits.add(new FileSplit(file.toUri().toString(), at, Math.min(step, length - at)));
    }
    return splits;
  }

  /**
   * Rows of a reader's batches, how many batches there were, how many it read in halves, how many data pages the
   * column indexes ruled out, and the bytes it uploaded.
   */
  private record Batches(List<Object[]> rows, int count, long halved, long skippedPages, long uploaded) {}

  /** Every row of the splits' batches (any may share one), values as TestFiles keeps them. */
  private List<Object[]> read(List<FileSplit> splits) {
    return read(splits, new int[splits.size()], 1 + rnd.nextInt(400_000), TestFiles.COLUMNS).rows();
  }

  private Batches read(List<FileSplit> splits, int[] mergeKeys, long batchBytes, List<ScanColumn> columns) {
    return read(backend, stream, splits, mergeKeys, batchBytes, columns);
  }

  private Batches read(Backend backend, DeviceStream stream, List<FileSplit> splits, int[] mergeKeys, long batchBytes,
      List<ScanColumn> columns) {
    return read(backend, stream, splits, mergeKeys, batchBytes, columns, RowGroupPredicate.NONE, conf);
  }

  private Batches read(Backend backend, DeviceStream stream, List<FileSplit> splits, int[] mergeKeys, long batchBytes,
      List<ScanColumn> columns, RowGroupPredicate filter, Configuration conf) {
    List<Object[]> rows = new ArrayList<>();
    int count = 0;
    // LZ4 on the device, or on the reader threads
    ScanSettings settings = new ScanSettings(batchBytes, 4, true, filter,
        rnd.nextBoolean() ? DeviceCodecs.SUPPORTED : Set.of(CompressionCodecName.SNAPPY), HostCodecs.SUPPORTED);
    List<String> names = columns.stream().map(ScanColumn::name).toList();
    try (ParquetBatchReader reader = new ParquetBatchReader(backend, stream, conf, splits, mergeKeys, columns,
        settings, () -> { })) {
      while (reader.hasNext()) {
        try (DeviceBatch batch = reader.next();
            ArrowDownload download = ArrowDownload.begin(backend, batch, names, pageable, stream)) {
          count++;
          List<FieldVector> vectors = download.complete();
          try {
            for (int r = 0; r < batch.rowCount(); r++) {
              Object[] row = new Object[vectors.size()];
              for (int c = 0; c < vectors.size(); c++) row[c] = value(vectors.get(c), columns.get(c).type(), r);
              rows.add(row);
            }
          } finally {
            vectors.forEach(FieldVector::close);
          }
        }
      }
      return new Batches(rows, count, reader.splitBatches(), reader.skippedPages(), reader.uploadedBytes());
    }
  }

  private static Object value(FieldVector v, DeviceType type, int r) {
    if (v.isNull(r)) return null;
    if (v instanceof BitVector b) return (long) b.get(r);
    if (v instanceof DecimalVector d) {
      BigInteger unscaled = ((BigDecimal) d.getObject(r)).unscaledValue();
      return type.kind() == DeviceType.Kind.DECIMAL128 ? unscaled : (Object) unscaled.longValueExact();
    }
    if (v instanceof BaseVariableWidthVector s) return s.get(r);
    long at = (long) r * type.width();
    return switch (type.width()) {
      case 1 -> (long) v.getDataBuffer().getByte(at);
      case 2 -> (long) v.getDataBuffer().getShort(at);
      case 4 -> (long) v.getDataBuffer().getInt(at);
      default -> v.getDataBuffer().getLong(at);
    };
  }

  private static void assertRows(List<Object[]> expected, List<Object[]> actual, String what) {
    assertRows(expected, actual, TestFiles.COLUMNS, what);
  }

  private static void assertRows(List<Object[]> expected, List<Object[]> actual, List<ScanColumn> columns,
      String what) {
    assertEquals(expected.size(), actual.size(), what + ": rows");
    for (int r = 0; r < actual.size(); r++) {
      for (int c = 0; c < columns.size(); c++) {
        Object e = expected.get(r)[c];
        Object a = actual.get(r)[c];
        String where = what + ": row " + r + " column " + columns.get(c).name();
        if (e instanceof byte[] b) {
          assertArrayEquals(b, (byte[]) a, where);
        } else {
          assertEquals(e, a, where);
        }
      }
    }
  }
}
