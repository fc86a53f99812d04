package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.GPU_TO_HOST;
import static io.sparkwarp.it.harness.GpuNodes.HASH_AGGREGATE;
import static io.sparkwarp.it.harness.GpuNodes.HOST_TO_GPU;
import static io.sparkwarp.it.harness.GpuNodes.PARQUET_SCAN;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.it.data.EncodedFiles;
import io.sparkwarp.it.data.Gens;
import io.sparkwarp.it.data.TableGen;
import io.sparkwarp.it.data.TestTables;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.QueryCheck;
import io.sparkwarp.it.harness.SharedSpark;
import io.sparkwarp.parquet.PageRegions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The GPU Parquet scan against Spark's own reader, row for row, over files Spark writes: every codec the device
 * decompresses (a setting) and every codec its reader threads decompress (named in the plan, or the scan stays on
 * Spark's reader when they may not),
 * decompresses, dictionary on and off, page v1 and v2 ({@code parquet.writer.version}), nulls, every supported type,
 * empty files, many small row groups and pages, files cut into many splits, batches smaller than a row group, many
 * small files in fewer batches, partition columns (appended per batch, whose files share their values); files
 * parquet-mr writes in DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY (also after a dictionary) and BYTE_STREAM_SPLIT.
 * What it cannot read, or a query reading input_file_name(), stays on Spark's reader with the reason; a flipped bit
 * in a page fails the query naming the file.
 */
class ParquetScanTest extends GpuTestBase {
  private static final int SMALL_FILES = 40;

  static Stream<Arguments> shapes() {
    Stream<Arguments> deviceCodecs = Stream.of("snappy", "uncompressed").flatMap(codec -> Stream.of(true, false)
        .flatMap(dictionary -> Stream.of("PARQUET_1_0", "PARQUET_2_0")
            .map(version -> Arguments.of(codec, dictionary, version))));
    // LZ4 (Hadoop's framing), LZ4_RAW and ZSTD are decompressed on the device too; page v2 once without a dictionary
    Stream<Arguments> deviceLz = Stream.of("lz4", "lz4_raw", "zstd").flatMap(codec -> Stream.of(
        Arguments.of(codec, true, "PARQUET_1_0"), Arguments.of(codec, false, "PARQUET_1_0"),
        Arguments.of(codec, false, "PARQUET_2_0")));
    // decompressed by the reader threads, decoded by the device like any other page
    Stream<Arguments> hostCodecs = Stream.of(true, false).map(dictionary -> Arguments.of("gzip", dictionary,
        "PARQUET_1_0"));
    deviceCodecs = Stream.concat(deviceCodecs, deviceLz);
    return Stream.concat(deviceCodecs, hostCodecs);
  }

  @ParameterizedTest(name = "{0}, dictionary {1}, {2}")
  @MethodSource("shapes")
  void everyShapeMatchesSparksReader(String codec, boolean dictionary, String version) {
    String view = "pq_" + codec + "_" + dictionary + "_" + version.toLowerCase(java.util.Locale.ROOT);
    TestTables.allTypes(3000, false).parquetView(spark(), view, Map.of("compression", codec,
        "parquet.enable.dictionary", Boolean.toString(dictionary), "parquet.writer.version", version,
        "parquet.block.size", "65536", "parquet.page.size", "4096"));
    // parquet-mr's v2 writer stores strings (DELTA_BYTE_ARRAY), integers (DELTA_BINARY_PACKED) and booleans (RLE)
    // in encodings of their own once off (or past) a dictionary: all read on the GPU. Spark's vectorized reader
    // misreads DELTA_BYTE_ARRAY pages of uncompressed files (bytes that are not in the file), its parquet-mr row
    // reader does not: the reference for page v2
    String sql = "SELECT * FROM " + view;
    query(sql).gpuNodes(PARQUET_SCAN, GPU_TO_HOST).conf("spark.sql.files.maxPartitionBytes", "20000")
        .conf("spark.sql.files.openCostInBytes", "0")
        .conf("spark.sql.parquet.enableVectorizedReader", Boolean.toString(version.equals("PARQUET_1_0")))
        .matchesCpu();
    if (version.equals("PARQUET_1_0")) {
      assertGpuMatchesCpu("SELECT id, str_a, dec_a, bool_b FROM " + view + " WHERE int_a > int_b", PARQUET_SCAN,
          FILTER, GPU_TO_HOST);
    }
  }

  /** Files parquet-mr writes in encodings Spark's writer does not pick, each named with how it is written. */
  static Stream<Arguments> valueEncodings() {
    return Stream.of(Arguments.of("DELTA_BYTE_ARRAY", EncodedFiles.Shape.DELTA_BYTE_ARRAY),
        Arguments.of("DELTA_BYTE_ARRAY", EncodedFiles.Shape.DELTA_BYTE_ARRAY_AFTER_DICTIONARY),
        Arguments.of("DELTA_LENGTH_BYTE_ARRAY", EncodedFiles.Shape.DELTA_LENGTH_BYTE_ARRAY),
        Arguments.of("BYTE_STREAM_SPLIT", EncodedFiles.Shape.BYTE_STREAM_SPLIT));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("valueEncodings")
  void deltaAndSplitEncodingsMatchSparksReader(String encoding, EncodedFiles.Shape shape) throws IOException {
    String view = "pq_encoded_" + shape.name().toLowerCase(java.util.Locale.ROOT);
    Path dir = SharedSpark.scratchDir().resolve("tables").resolve(view);
    List<Set<String>> chunks = EncodedFiles.write(dir.resolve("part-0.parquet"), 6000, shape, new Random());
    // the encoding is in the file; after a dictionary: in a column chunk that began with one
    Set<String> wanted = shape == EncodedFiles.Shape.DELTA_BYTE_ARRAY_AFTER_DICTIONARY
        ? Set.of(encoding, "RLE_DICTIONARY") : Set.of(encoding);
    assertTrue(chunks.stream().anyMatch(c -> c.containsAll(wanted)), shape + " wrote " + chunks);
    spark().read().parquet(dir.toString()).createOrReplaceTempView(view);
    // Spark's vectorized reader has no BYTE_STREAM_SPLIT; its parquet-mr row reader reads it
    String vectorized = Boolean.toString(shape != EncodedFiles.Shape.BYTE_STREAM_SPLIT);
    query("SELECT * FROM " + view).gpuNodes(PARQUET_SCAN, GPU_TO_HOST).conf("spark.warp.parquet.batchBytes", "30000")
        .conf("spark.sql.parquet.enableVectorizedReader", vectorized).matchesCpu();
    query("SELECT id, s, bin, decf FROM " + view + " WHERE i > 0 OR l < 0").gpuNodes(PARQUET_SCAN, FILTER, GPU_TO_HOST)
        .conf("spark.sql.parquet.enableVectorizedReader", vectorized).matchesCpu();
  }

  @Test
  void batchesSmallerThanARowGroup() {
    TestTables.allTypes(4000, false).parquetView(spark(), "pq_big_groups", Map.of("compression", "snappy"));
    query("SELECT * FROM pq_big_groups").gpuNodes(PARQUET_SCAN, GPU_TO_HOST).conf("spark.warp.parquet.batchBytes", "1")
        .matchesCpu();
  }

  @Test
  void nullsEmptyFilesAndNoColumns() {
    assertGpuMatchesCpu("SELECT * FROM " + TestTables.ALL_NULL, PARQUET_SCAN, GPU_TO_HOST);
    assertGpuMatchesCpu("SELECT count(*) FROM " + TestTables.ALL_TYPES, PARQUET_SCAN);
    TestTables.allTypes(0, false).parquetView(spark(), "pq_empty", Map.of("compression", "snappy"));
    SparkPlan plan = gpuPlan("SELECT * FROM pq_empty");
    assertTrue(PlanNodes.names(plan).contains(PARQUET_SCAN), plan.treeString());
  }

  @Test
  void theFirstGpuOperatorTakesTheScansBatches() {
    SparkPlan plan = gpuPlan("SELECT id, skew + 1 FROM " + TestTables.ALL_TYPES + " WHERE long_a > 0");
    List<String> nodes = PlanNodes.names(plan);
    assertTrue(nodes.contains(PARQUET_SCAN), plan.treeString());
    assertFalse(nodes.contains(HOST_TO_GPU), "a transition between the scan and the filter:\n"
        + plan.treeString());
  }

  @Test
  void hostCodecsAreNamedInThePlanOrLeftToSpark() {
    TestTables.allTypes(500, false).parquetView(spark(), "pq_gzip", Map.of("compression", "gzip"));
    String plan = gpuPlan("SELECT * FROM pq_gzip").treeString();
    assertTrue(plan.contains("[GZIP] pages decompressed by CPU reader threads"), plan);
    String filter = "SELECT * FROM pq_gzip WHERE int_a > 0";
    query(filter).conf("spark.warp.parquet.hostCodecs", "ZSTD").gpuNodes(HOST_TO_GPU, FILTER)
        .fallsBack("FileSourceScanExec", "codec GZIP is not decompressed by the GPU scan");
    query(filter).conf("spark.warp.parquet.hostCodecs", "").gpuNodes(HOST_TO_GPU, FILTER)
        .fallsBack("FileSourceScanExec", "reader threads none");
  }

  @Test
  void deviceCodecsAreASetting() {
    TestTables.allTypes(500, false).parquetView(spark(), "pq_lz4", Map.of("compression", "lz4"));
    String onDevice = gpuPlan("SELECT * FROM pq_lz4").treeString();
    assertFalse(onDevice.contains("pages decompressed by CPU reader threads"), onDevice);
    // taken off the device: the reader threads inflate the pages
    query("SELECT * FROM pq_lz4").conf("spark.warp.parquet.deviceCodecs", "SNAPPY").gpuNodes(PARQUET_SCAN, GPU_TO_HOST)
        .matchesCpu();
    // ZSTD likewise, on the device by default
    TestTables.allTypes(500, false).parquetView(spark(), "pq_zstd", Map.of("compression", "zstd"));
    String zstd = gpuPlan("SELECT * FROM pq_zstd").treeString();
    assertFalse(zstd.contains("pages decompressed by CPU reader threads"), zstd);
    query("SELECT * FROM pq_zstd").conf("spark.warp.parquet.deviceCodecs", "SNAPPY").gpuNodes(PARQUET_SCAN, GPU_TO_HOST)
        .matchesCpu();
    query("SELECT * FROM pq_lz4 WHERE int_a > 0").conf("spark.warp.parquet.deviceCodecs", "")
        .conf("spark.warp.parquet.hostCodecs", "").gpuNodes(HOST_TO_GPU, FILTER)
        .fallsBack("FileSourceScanExec", "the device decompresses none: spark.warp.parquet.deviceCodecs");
  }

  @Test
  void columnsMissingFromAFileReadAsNulls() {
    // a table whose schema grew: older files lack the newer columns (of every kind of device layout)
    Path dir = SharedSpark.scratchDir().resolve("tables").resolve("pq_evolved");
    spark().sql("SELECT id, int_a FROM " + TestTables.ALL_TYPES + " WHERE id % 2 = 0").write().mode("overwrite")
        .parquet(dir.resolve("part=old").toString());
    spark().sql("SELECT id, int_a, str_a AS added_str, dec_a AS added_dec, bool_a AS ADDED_BOOL FROM "
        + TestTables.ALL_TYPES + " WHERE id % 2 = 1").write().mode("overwrite")
        .parquet(dir.resolve("part=new").toString());
    spark().read().option("mergeSchema", "true").parquet(dir.toString()).createOrReplaceTempView("pq_evolved");
    assertGpuMatchesCpu("SELECT * FROM pq_evolved", PARQUET_SCAN, GPU_TO_HOST);
    assertGpuMatchesCpu("SELECT part, count(*), count(added_str), count(added_dec) FROM pq_evolved GROUP BY part",
        PARQUET_SCAN);
    assertGpuMatchesCpu("SELECT id, added_str FROM pq_evolved WHERE added_str IS NULL OR added_bool", PARQUET_SCAN,
        FILTER, GPU_TO_HOST);
    // a file with none of the needed columns still has its rows
    assertGpuMatchesCpu("SELECT added_dec FROM pq_evolved", PARQUET_SCAN, GPU_TO_HOST);
  }

  @Test
  void widenedColumnTypesReadAsSparkWidensThem() {
    // files written before the table's int column became a long and its decimals gained digits
    Path dir = SharedSpark.scratchDir().resolve("tables").resolve("pq_widened");
    spark().sql("SELECT id, int_a, TRY_CAST(skew AS TINYINT) AS tiny, TRY_CAST(dec_a / 1e9 AS DECIMAL(9, 2)) AS "
        + "small_dec, TRY_CAST(dec_a AS DECIMAL(15, 2)) AS mid_dec FROM " + TestTables.ALL_TYPES).write().mode("overwrite")
        .parquet(dir.toString());
    spark().read().schema("id LONG, int_a LONG, tiny LONG, small_dec DECIMAL(12, 2), mid_dec DECIMAL(18, 2)")
        .parquet(dir.toString()).createOrReplaceTempView("pq_widened");
    assertGpuMatchesCpu("SELECT * FROM pq_widened", PARQUET_SCAN, GPU_TO_HOST);
    assertGpuMatchesCpu("SELECT id, int_a * 3000000000 FROM pq_widened WHERE small_dec > 10", PARQUET_SCAN, FILTER,
        GPU_TO_HOST);
    // a scale change or float to double converts values: Spark's reader does it
    spark().read().schema("id LONG, small_dec DECIMAL(12, 4)").parquet(dir.toString())
        .createOrReplaceTempView("pq_rescaled");
    assertFallsBack("SELECT * FROM pq_rescaled", "FileSourceScanExec", "small_dec");
  }

  @Test
  void unsignedIntegersReadOneSizeUp() throws IOException {
    // Spark writes no unsigned integers; other writers (pyarrow, parquet-mr) do. 64-bit ones read as decimal(20,0)
    MessageType schema = MessageTypeParser.parseMessageType("message m { required int64 id; "
        + "optional int32 u8 (INTEGER(8,false)); optional int32 u16 (INTEGER(16,false)); "
        + "optional int32 u32 (INTEGER(32,false)); optional int64 u64 (INTEGER(64,false)); }");
    Path dir = SharedSpark.scratchDir().resolve("tables").resolve("pq_unsigned");
    Random rnd = new Random();
    long[] edges = {0, -1, Long.MIN_VALUE, Long.MAX_VALUE};  // 0, 2^64 - 1, 2^63, 2^63 - 1
    writeExampleFiles(dir, schema, 3000, (g, i) -> {
      g.append("id", (long) i);
      if (rnd.nextInt(10) > 0) g.append("u8", i % 7 == 0 ? 255 : rnd.nextInt(256));
      if (rnd.nextInt(10) > 0) g.append("u16", i % 5 == 0 ? 65535 : rnd.nextInt(65536));
      g.append("u32", rnd.nextInt());
      if (rnd.nextInt(10) > 0) g.append("u64", i % 3 == 0 ? edges[rnd.nextInt(edges.length)] : rnd.nextLong());
    });
    spark().read().parquet(dir.toString()).createOrReplaceTempView("pq_unsigned");
    assertGpuMatchesCpu("SELECT * FROM pq_unsigned", PARQUET_SCAN, GPU_TO_HOST);
    assertGpuMatchesCpu("SELECT id FROM pq_unsigned WHERE u8 > 200 AND u16 < 1000 AND u32 > 3000000000", PARQUET_SCAN,
        FILTER, GPU_TO_HOST);
  }

  @Test
  void nanosecondTimestampsReadAsLongsWithTheLegacySetting() throws IOException {
    MessageType schema = MessageTypeParser.parseMessageType("message m { required int64 id; "
        + "optional int64 ns (TIMESTAMP(NANOS,true)); }");
    Path dir = SharedSpark.scratchDir().resolve("tables").resolve("pq_nanos");
    Random rnd = new Random();
    writeExampleFiles(dir, schema, 2000, (g, i) -> {
      g.append("id", (long) i);
      if (rnd.nextInt(10) > 0) g.append("ns", i % 4 == 0 ? (long) rnd.nextInt(50) : rnd.nextLong());
    });
    query("long nanoseconds", s -> s.read().parquet(dir.toString()).where("id % 2 = 0"))
        .conf("spark.sql.legacy.parquet.nanosAsLong", "true").gpuNodes(PARQUET_SCAN, FILTER, GPU_TO_HOST)
        .matchesCpu();
    // without it Spark cannot infer the schema, and given one its reader decides: the scan stays on that reader
    query("nanoseconds read as long without the setting", s -> s.read().schema("id LONG, ns LONG")
        .parquet(dir.toString()).where("id % 2 = 0")).gpuNodes(HOST_TO_GPU, FILTER)
        .fallsBack("FileSourceScanExec", "spark.sql.legacy.parquet.nanosAsLong=true");
  }

  /**
   * Two files of {@code rows} rows each in {@code dir} written by parquet-mr, one with dictionaries and one PLAIN;
   * {@code fill} sets row i's values.
   */
  private static void writeExampleFiles(Path dir, MessageType schema, int rows,
      java.util.function.ObjIntConsumer<Group> fill) throws IOException {
    Files.createDirectories(dir);
    for (boolean dictionary : new boolean[] {true, false}) {
      Path file = dir.resolve("part-" + dictionary + ".parquet");
      Files.deleteIfExists(file);
      try (ParquetWriter<Group> writer = ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(file.toUri()))
          .withType(schema).withDictionaryEncoding(dictionary).build()) {
        SimpleGroupFactory groups = new SimpleGroupFactory(schema);
        for (int i = 0; i < rows; i++) {
          Group g = groups.newGroup();
          fill.accept(g, i);
          writer.write(g);
        }
      }
    }
  }

  @Test
  void millisecondTimestampsScaleToMicroseconds() {
    withConf(Map.of("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MILLIS"), () -> TableGen.rows(2000)
        .column("id", Gens.uniqueLongs()).column("ts", Gens.timestamps()).parquetView(spark(), "pq_millis"));
    assertGpuMatchesCpu("SELECT * FROM pq_millis", PARQUET_SCAN, GPU_TO_HOST);
    assertGpuMatchesCpu("SELECT id FROM pq_millis WHERE ts < TIMESTAMP '1990-06-01 12:00:00.123'", PARQUET_SCAN,
        FILTER, GPU_TO_HOST);
  }

  @Test
  void int96TimestampsReadOnTheGpu() {
    for (boolean dictionary : new boolean[] {true, false}) {
      String view = "pq_int96_" + dictionary;
      withConf(Map.of("spark.sql.parquet.outputTimestampType", "INT96"), () -> TableGen.rows(2000)
          .column("id", Gens.uniqueLongs()).column("ts", Gens.timestamps()).parquetView(spark(), view,
              Map.of("compression", "snappy", "parquet.enable.dictionary", Boolean.toString(dictionary))));
      assertGpuMatchesCpu("SELECT * FROM " + view, PARQUET_SCAN, GPU_TO_HOST);
      assertGpuMatchesCpu("SELECT id, ts FROM " + view + " WHERE ts > TIMESTAMP '2000-01-01 00:00:00'", PARQUET_SCAN,
          FILTER, GPU_TO_HOST);
    }
    // Impala's conversion to the session time zone, and files written in the legacy calendar, stay on Spark's reader
    query("SELECT * FROM pq_int96_true WHERE id > 0").conf("spark.sql.parquet.int96TimestampConversion", "true")
        .gpuNodes(HOST_TO_GPU, FILTER).fallsBack("FileSourceScanExec", "int96TimestampConversion");
    withConf(Map.of("spark.sql.parquet.outputTimestampType", "INT96", "spark.sql.parquet.int96RebaseModeInWrite",
        "LEGACY"), () -> TableGen.rows(100).column("id", Gens.uniqueLongs()).column("ts", Gens.timestamps())
        .parquetView(spark(), "pq_int96_legacy"));
    query("SELECT * FROM pq_int96_legacy WHERE id > 0").gpuNodes(HOST_TO_GPU, FILTER)
        .fallsBack("FileSourceScanExec", "INT96 column ts may hold timestamps before 1900");
  }

  @Test
  void partitionColumnsAreAppendedPerFile() {
    Path dir = SharedSpark.scratchDir().resolve("tables").resolve("pq_partitioned");
    spark().sql("SELECT id, int_a, str_a, id % 3 AS part, CASE WHEN id % 4 = 0 THEN NULL ELSE CAST(id % 2 AS STRING) "
        + "END AS tag FROM " + TestTables.ALL_TYPES).write().mode("overwrite").partitionBy("part", "tag")
        .parquet(dir.toString());
    spark().read().parquet(dir.toString()).createOrReplaceTempView("pq_partitioned");
    assertGpuMatchesCpu("SELECT * FROM pq_partitioned", PARQUET_SCAN, GPU_TO_HOST);
    assertGpuMatchesCpu("SELECT tag, id FROM pq_partitioned WHERE part = 1", PARQUET_SCAN, GPU_TO_HOST);
    assertGpuMatchesCpu("SELECT part, count(*) FROM pq_partitioned GROUP BY part", PARQUET_SCAN);
  }

  @Test
  void smallFilesShareBatches() throws IOException {
    Path dir = manySmallFiles("pq_small_files");
    long files;
    try (Stream<Path> listed = Files.list(dir)) {
      files = listed.filter(f -> f.toString().endsWith(".parquet")).count();
    }
    assertTrue(files >= SMALL_FILES, files + " files");
    query("SELECT * FROM pq_small_files").gpuNodes(PARQUET_SCAN, GPU_TO_HOST).matchesCpu();
    assertGpuMatchesCpu("SELECT id, str_a, dec_a FROM pq_small_files WHERE int_a > int_b", PARQUET_SCAN, FILTER,
        GPU_TO_HOST);
    long batches = withConf(Map.of(QueryCheck.ENABLED, "true"), () -> {
      Dataset<Row> query = spark().sql("SELECT * FROM pq_small_files");
      query.collectAsList();
      SparkPlan scan = PlanNodes.all(query.queryExecution().executedPlan()).stream()
          .filter(n -> n.getClass().getSimpleName().equals(PARQUET_SCAN)).findFirst().orElseThrow();
      return scan.metrics().apply("numOutputBatches").value();
    });
    assertTrue(batches < files, batches + " batches of " + files + " files");
  }

  @Test
  void partitionsOfManyFilesShareBatchesWithinAPartition() {
    // each partition directory holds many files, which Spark's file partitions mix: batches must not
    Path dir = SharedSpark.scratchDir().resolve("tables").resolve("pq_partition_files");
    spark().sql("SELECT id, int_a, str_a, dec_a, id % 3 AS part FROM " + TestTables.ALL_TYPES).repartition(SMALL_FILES)
        .write().mode("overwrite").partitionBy("part").parquet(dir.toString());
    spark().read().parquet(dir.toString()).createOrReplaceTempView("pq_partition_files");
    assertGpuMatchesCpu("SELECT * FROM pq_partition_files", PARQUET_SCAN, GPU_TO_HOST);
    assertGpuMatchesCpu("SELECT part, count(*), sum(int_a), max(str_a) FROM pq_partition_files GROUP BY part",
        PARQUET_SCAN);
    assertGpuMatchesCpu("SELECT id, part FROM pq_partition_files WHERE part > 0", PARQUET_SCAN, GPU_TO_HOST);
  }

  @Test
  void inputFileNameKeepsTheScanOnSparksReader() {
    manySmallFiles("pq_file_names");
    // the GPU scan does not tell Spark which file a row came from (its batches span files), and a GPU operator between
    // scan and expression would batch rows of several files: both stay on the CPU; the aggregation above moves
    for (String expression : List.of("input_file_name()", "input_file_block_start()", "input_file_block_length()")) {
      String sql = "SELECT f, count(*), sum(id) FROM (SELECT id, " + expression + " AS f FROM pq_file_names "
          + "WHERE int_a > 0) GROUP BY f";
      for (String cpuNode : List.of("FileSourceScanExec", "FilterExec")) {
        query(sql).gpuNodes(HASH_AGGREGATE).fallsBack(cpuNode, "input_file_name()");
      }
    }
  }

  @Test
  void aFlippedPageBitFailsTheQueryNamingTheFile() throws IOException {
    Random rnd = new Random();
    TestTables.allTypes(2000, false).parquetView(spark(), "pq_corrupt", Map.of("compression", "uncompressed",
        "parquet.enable.dictionary", "false", "parquet.page.write-checksum.enabled", "true"));
    Path dir = SharedSpark.scratchDir().resolve("tables").resolve("pq_corrupt");
    Path file;
    try (Stream<Path> files = Files.list(dir)) {
      file = files.filter(f -> f.toString().endsWith(".parquet") && sizeOf(f) > 10_000).findFirst().orElseThrow();
    }
    PageRegions.flipBit(new org.apache.hadoop.fs.Path(file.toUri()), rnd);
    Exception e = assertThrows(Exception.class, () -> withConf(Map.of(QueryCheck.ENABLED, "true"),
        () -> spark().sql("SELECT * FROM pq_corrupt").collectAsList()));
    StringBuilder messages = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) messages.append(t.getMessage()).append('\n');
    assertTrue(messages.toString().contains(file.getFileName().toString()), messages.toString());
  }

  /** A table of {@value #SMALL_FILES} small files, as Spark writes one per task: {@code name}, also a view. */
  private static Path manySmallFiles(String name) {
    Path dir = SharedSpark.scratchDir().resolve("tables").resolve(name);
    spark().sql("SELECT * FROM " + TestTables.ALL_TYPES).repartition(SMALL_FILES).write().mode("overwrite")
        .option("compression", "snappy").parquet(dir.toString());
    spark().read().parquet(dir.toString()).createOrReplaceTempView(name);
    return dir;
  }

  private static long sizeOf(Path f) {
    try {
      return Files.size(f);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static SparkPlan gpuPlan(String sql) {
    return withConf(Map.of(QueryCheck.ENABLED, "true"), () -> {
      Dataset<Row> query = spark().sql(sql);
      query.collectAsList();
      return query.queryExecution().executedPlan();
    });
  }
}
