package io.sparkwarp.parquet;

import io.sparkwarp.kernels.batch.DeviceType;
import java.io.IOException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.CorruptDeltaByteArrays;
import org.apache.parquet.HadoopReadOptions;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.Encoding;
import org.apache.parquet.column.EncodingStats;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.hadoop.metadata.ColumnChunkMetaData;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * Planning-time check that the device can read every file of a scan: each footer is read on the driver (once while
 * the file stays as listed: {@link FooterCache}) and every needed column chunk checked for its type, codec and page
 * encodings. The first problem found is the reason the scan stays on Spark's reader.
 */
public final class ScanSupport {
  private static final Set<Encoding> DATA_ENCODINGS =
      EnumSet.of(Encoding.PLAIN, Encoding.PLAIN_DICTIONARY, Encoding.RLE_DICTIONARY);
  private static final Set<Encoding> DICTIONARY_ENCODINGS = EnumSet.of(Encoding.PLAIN, Encoding.PLAIN_DICTIONARY);
  /** Spark's footer key for files written by Spark, and for those written with its legacy hybrid calendar. */
  private static final String SPARK_VERSION = "org.apache.spark.version";
  private static final String LEGACY_DATETIME = "org.apache.spark.legacyDateTime";
  private static final String LEGACY_INT96 = "org.apache.spark.legacyINT96";

  /** The footers the check read, in this JVM (the driver's). */
  private static final FooterCache FOOTERS = new FooterCache(FooterCache.MAX_CHUNKS);

  /** Decompressed page bytes one batch may hold: the device tables address them with int32 offsets. */
  static final long MAX_BATCH_BYTES = Integer.MAX_VALUE;

  private ScanSupport() {}

  /**
   * Whether the GPU scan reads the files.
   *
   * @param whyNot why the device cannot read them, or empty
   * @param hostDecompressed the codecs of the needed column chunks that reader threads decompress ({@link HostCodecs})
   */
  public record Verdict(Optional<String> whyNot, Set<CompressionCodecName> hostDecompressed) {}

  /**
   * Checks every footer of {@code files} for {@code columns}, read in parallel ({@link ReaderThreads#footers}: a
   * table of many files, or on an object store, would otherwise hold up planning by a read per file) unless read for
   * an earlier plan ({@link FooterCache}). The first file in order with a problem gives the reason; the footers after
   * it that were not read yet are not read.
   *
   * @param hadoopConf the files' Hadoop configuration, made only where a footer is read (a copy of every
   *     setting: it cost more than the check once the footers are kept)
   * @param rebaseCorrected whether Spark reads dates and timestamps as written ({@code CORRECTED} rebase mode);
   *     otherwise files that may hold hybrid-calendar values keep the scan on the CPU, which rebases or raises
   * @param int96RebaseCorrected whether Spark reads INT96 timestamps of files that do not say their calendar as
   *     written ({@code spark.sql.parquet.int96RebaseModeInRead=CORRECTED})
   * @param nanosAsLong whether Spark reads nanosecond timestamps as longs
   *     ({@code spark.sql.legacy.parquet.nanosAsLong}); otherwise the scan of such a column stays on Spark's reader,
   *     which fails on them or reads them as the schema given asks
   * @param deviceCodecs the codecs the device decompresses ({@link DeviceCodecs})
   * @param hostCodecs the codecs reader threads may decompress when the device does not; chunks of other codecs keep
   *     the scan on the CPU
   */
  public static Verdict check(Supplier<Configuration> hadoopConf, List<ListedFile> files, List<ScanColumn> columns,
      boolean caseSensitive, boolean rebaseCorrected, boolean int96RebaseCorrected, boolean nanosAsLong,
      Set<CompressionCodecName> deviceCodecs, Set<CompressionCodecName> hostCodecs) {
    Supplier<Configuration> conf = once(hadoopConf);
    List<Future<Verdict>> checks = new ArrayList<>();
    for (ListedFile listed : files) {
      Path file = listed.path();
      checks.add(ReaderThreads.footers().submit(() -> {
        Set<CompressionCodecName> used = EnumSet.noneOf(CompressionCodecName.class);
        try {
          Optional<String> why = whyNot(FOOTERS.footer(listed, () -> footer(conf.get(), file)), columns, caseSensitive,
              rebaseCorrected, int96RebaseCorrected, nanosAsLong, deviceCodecs, hostCodecs, used);
          return new Verdict(why.map(w -> "file " + file + ": " + w), used);
        } catch (IOException | RuntimeException e) {
          return new Verdict(Optional.of("the footer of " + file + " could not be read (" + e.getMessage() + ")"),
              used);
        }
      }));
    }
    Set<CompressionCodecName> used = EnumSet.noneOf(CompressionCodecName.class);
    try {
      for (Future<Verdict> check : checks) {
        Verdict file = check.get();
        used.addAll(file.hostDecompressed());
        if (file.whyNot().isPresent()) return new Verdict(file.whyNot(), used);
      }
      return new Verdict(Optional.empty(), used);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new Verdict(Optional.of("planning was interrupted while the footers were read"), used);
    } catch (ExecutionException e) {
      throw new IllegalStateException("reading the footers failed", e.getCause());
    } finally {
      for (Future<Verdict> check : checks) check.cancel(false);  // those not needed once a file says no
    }
  }

  /** {@code make}'s value, made at the first call by any thread. */
  private static <T> Supplier<T> once(Supplier<T> make) {
    return new Supplier<>() {
      private T value;

      @Override
      public synchronized T get() {
        if (value == null) value = make.get();
        return value;
      }
    };
  }

  static ParquetMetadata footer(Configuration conf, Path file) throws IOException {
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(file, conf),
        HadoopReadOptions.builder(conf).build())) {
      return reader.getFooter();
    }
  }

  /** Why not, adding the host codecs met to {@code used}. */
  private static Optional<String> whyNot(ParquetMetadata footer, List<ScanColumn> columns, boolean caseSensitive,
      boolean rebaseCorrected, boolean int96RebaseCorrected, boolean nanosAsLong,
      Set<CompressionCodecName> deviceCodecs, Set<CompressionCodecName> hostCodecs, Set<CompressionCodecName> used) {
    List<ColumnDescriptor> descriptors;
    try {
      descriptors = FileColumns.resolve(footer.getFileMetaData().getSchema(), columns, caseSensitive);
    } catch (UnsupportedParquetException e) {
      return Optional.of(e.getMessage());
    }
    Map<String, String> keyValues = footer.getFileMetaData().getKeyValueMetaData();
    // Spark rebases from the hybrid calendar, or refuses, unless the file or the mode says values are as written;
    // INT96 timestamps follow their own mode and footer key
    boolean datesAsWritten = rebaseCorrected || writtenWithProlepticCalendar(keyValues);
    boolean int96AsWritten = int96RebaseCorrected || int96WrittenProleptic(keyValues);
    for (int i = 0; i < columns.size(); i++) {
      ScanColumn c = columns.get(i);
      ColumnDescriptor d = descriptors.get(i);
      boolean int96 = d != null && d.getPrimitiveType().getPrimitiveTypeName() == PrimitiveTypeName.INT96;
      DeviceType.Kind k = c.type().kind();
      if (d != null && !nanosAsLong && ColumnMapping.nanos(d.getPrimitiveType().getLogicalTypeAnnotation())) {
        return Optional.of("column " + c.name() + " holds nanosecond timestamps, read on the GPU only with "
            + "spark.sql.legacy.parquet.nanosAsLong=true (as longs)");
      }
      if (int96 && !int96AsWritten) {
        return Optional.of("INT96 column " + c.name() + " may hold timestamps before 1900 in the hybrid calendar, "
            + "which Spark rebases or rejects (spark.sql.parquet.int96RebaseModeInRead=CORRECTED reads them as "
            + "written)");
      }
      if (!int96 && !datesAsWritten && (k == DeviceType.Kind.DATE || k == DeviceType.Kind.TIMESTAMP)) {
        return Optional.of("column " + c.name() + " may hold dates before 1582 in the hybrid calendar, which "
            + "Spark rebases or rejects (spark.sql.parquet.datetimeRebaseModeInRead=CORRECTED reads them as "
            + "written)");
      }
    }
    for (BlockMetaData block : footer.getBlocks()) {
      long bytes = 0;
      for (ColumnDescriptor d : descriptors) {
        if (d == null) continue;  // a column the file lacks: nulls
        ColumnChunkMetaData chunk = chunk(block, d);
        if (chunk == null) return Optional.of("a row group lacks column " + String.join(".", d.getPath()));
        bytes += chunk.getTotalUncompressedSize();
        if (bytes >= MAX_BATCH_BYTES) {
          return Optional.of("a row group holds " + bytes + " bytes of the needed columns, more than one GPU batch "
              + "takes (2 GiB)");
        }
        boolean onDevice = DeviceCodecs.onDevice(chunk.getCodec(), deviceCodecs);
        if (!onDevice && hostCodecs.contains(chunk.getCodec())) {
          used.add(chunk.getCodec());
        } else if (!onDevice) {
          return Optional.of("codec " + chunk.getCodec() + " is not decompressed by the GPU scan (the device "
              + "decompresses " + (deviceCodecs.isEmpty() ? "none" : deviceCodecs) + ": spark.warp.parquet."
              + "deviceCodecs, reader threads " + (hostCodecs.isEmpty() ? "none" : hostCodecs)
              + ": spark.warp.parquet.hostCodecs)");
        }
        Optional<String> encodings = whyNotEncodings(chunk, d, footer.getFileMetaData().getCreatedBy());
        if (encodings.isPresent()) return encodings;
      }
    }
    return Optional.empty();
  }

  /**
   * Whether Spark reads a file's INT96 timestamps as written: files of Spark 3.1 and later that do not say they were
   * written in the legacy calendar (Spark's DataSourceUtils.int96RebaseSpec); files of other writers follow the mode.
   */
  private static boolean int96WrittenProleptic(Map<String, String> keyValues) {
    String version = keyValues.get(SPARK_VERSION);
    return version != null && version.compareTo("3.1.0") >= 0 && !keyValues.containsKey(LEGACY_INT96);
  }

  /** Spark 3.0 and later write dates and timestamps in the proleptic Gregorian calendar unless told otherwise. */
  private static boolean writtenWithProlepticCalendar(Map<String, String> keyValues) {
    String version = keyValues.get(SPARK_VERSION);
    return version != null && !version.startsWith("2.") && !version.startsWith("1.")
        && !keyValues.containsKey(LEGACY_DATETIME);
  }

  private static Optional<String> whyNotEncodings(ColumnChunkMetaData chunk, ColumnDescriptor d, String createdBy) {
    boolean bool = d.getPrimitiveType().getPrimitiveTypeName()
        == org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName.BOOLEAN;
    EncodingStats stats = chunk.getEncodingStats();
    Set<Encoding> data = EnumSet.copyOf(DATA_ENCODINGS);
    data.addAll(valueEncodings(d.getPrimitiveType().getPrimitiveTypeName()));
    if (data.contains(Encoding.DELTA_BYTE_ARRAY) && deltaPrefixesCrossPages(createdBy)
        && (stats != null ? stats.getDataEncodings() : chunk.getEncodings()).contains(Encoding.DELTA_BYTE_ARRAY)) {
      return Optional.of("DELTA_BYTE_ARRAY column " + String.join(".", d.getPath()) + " was written by " + createdBy
          + ", whose pages may share a prefix with the page before (PARQUET-246); Spark's reader reads them in "
          + "order, the GPU decodes each page alone");
    }
    if (stats != null) {
      for (Encoding e : stats.getDataEncodings()) {
        if (!data.contains(e)) return Optional.of(unsupported(e, d));
      }
      for (Encoding e : stats.getDictionaryEncodings()) {
        if (!DICTIONARY_ENCODINGS.contains(e) || bool) return Optional.of(unsupported(e, d));
      }
      return Optional.empty();
    }
    for (Encoding e : chunk.getEncodings()) {
      // without page statistics the list also holds the level encodings (RLE, or BIT_PACKED for absent levels)
      if (!data.contains(e) && e != Encoding.RLE && e != Encoding.BIT_PACKED) return Optional.of(unsupported(e, d));
    }
    return Optional.empty();
  }

  /** Whether a writer's DELTA_BYTE_ARRAY pages may start with a prefix of the page before's last value. */
  static boolean deltaPrefixesCrossPages(String createdBy) {
    return CorruptDeltaByteArrays.requiresSequentialReads(createdBy, Encoding.DELTA_BYTE_ARRAY);
  }

  private static String unsupported(Encoding e, ColumnDescriptor d) {
    return "encoding " + e + " of column " + String.join(".", d.getPath()) + " is not decoded on the GPU";
  }

  /**
   * The encodings not for every type the device decodes values of {@code type} in: RLE for (page v2) booleans,
   * DELTA_BINARY_PACKED for integers, DELTA_LENGTH_BYTE_ARRAY for byte arrays, DELTA_BYTE_ARRAY for byte arrays and
   * fixed-length ones, BYTE_STREAM_SPLIT for every fixed-width type but booleans and INT96 (as the format allows).
   */
  static Set<Encoding> valueEncodings(PrimitiveTypeName type) {
    return switch (type) {
      case BOOLEAN -> EnumSet.of(Encoding.RLE);
      case INT32, INT64 -> EnumSet.of(Encoding.DELTA_BINARY_PACKED, Encoding.BYTE_STREAM_SPLIT);
      case FLOAT, DOUBLE -> EnumSet.of(Encoding.BYTE_STREAM_SPLIT);
      case FIXED_LEN_BYTE_ARRAY -> EnumSet.of(Encoding.DELTA_BYTE_ARRAY, Encoding.BYTE_STREAM_SPLIT);
      case BINARY -> EnumSet.of(Encoding.DELTA_LENGTH_BYTE_ARRAY, Encoding.DELTA_BYTE_ARRAY);
      case INT96 -> EnumSet.noneOf(Encoding.class);
    };
  }

  static ColumnChunkMetaData chunk(BlockMetaData block, ColumnDescriptor d) {
    for (ColumnChunkMetaData c : block.getColumns()) {
      if (c.getPath().equals(org.apache.parquet.hadoop.metadata.ColumnPath.get(d.getPath()))) return c;
    }
    return null;
  }
}
