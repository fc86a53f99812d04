package io.sparkwarp.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.testing.BackendTestBase;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scan's host side with the reference backend, over files parquet-mr writes in every shape: every row as
 * written, whole files and files cut into splits; what planning refuses (page v2's DELTA encodings) named; flipped
 * page bytes raise an error naming the file (checksums) or decode to the rows written.
 */
class ParquetBatchReaderTest extends BackendTestBase {
  /** What the device decompresses, then what reader threads do. */
  private static final List<CompressionCodecName> CODECS = List.of(CompressionCodecName.UNCOMPRESSED,
      CompressionCodecName.SNAPPY, CompressionCodecName.GZIP, CompressionCodecName.ZSTD, CompressionCodecName.LZ4,
      CompressionCodecName.LZ4_RAW);
  private final Random rnd = new Random();
  private final Configuration conf = new Configuration();

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
          Optional<String> why = ScanSupport.check(conf, List.of(f.path), TestFiles.COLUMNS, true, true, true,
              HostCodecs.SUPPORTED).whyNot();
          String shape = (v2 ? "v2" : "v1") + (dictionary ? " dictionary " : " plain ") + codec;
          if (v2) {  // parquet-mr's v2 writer picks DELTA encodings for integers and strings once off dictionary
            if (why.isPresent()) {
              assertTrue(why.get().contains("DELTA"), shape + ": " + why.get());
              continue;
            }
          } else {
            assertEquals(Optional.empty(), why, shape);
          }
          long length = Files.size(Path.of(f.path.toUri()));
          assertRows(f, read(List.of(new FileSplit(f.path.toUri().toString(), 0, length))), shape);
          List<FileSplit> splits = new ArrayList<>();
          long step = 1 + rnd.nextInt((int) length);
          for (long at = 0; at < length; at += step) {
            splits.add(new FileSplit(f.path.toUri().toString(), at, Math.min(step, length - at)));
          }
          assertRows(f, read(splits), shape + " in " + splits.size() + " splits");
        }
      }
    }
  }

  @Test
  void flippedPageBytesRaiseNamingTheFile() throws Exception {
    for (int round = 0; round < 40; round++) {
      TestFiles f = TestFiles.write(dir.resolve("c.parquet"), 1 + rnd.nextInt(3000), false, rnd.nextBoolean(),
          CODECS.get(rnd.nextInt(CODECS.size())), rnd);
      List<long[]> pages = PageRegions.of(f.path);
      Path file = Path.of(f.path.toUri());
      byte[] bytes = Files.readAllBytes(file);
      long[] page = pages.get(rnd.nextInt(pages.size()));
      if (page[1] == page[0]) continue;
      int at = (int) (page[0] + rnd.nextInt((int) (page[1] - page[0])));
      bytes[at] ^= (byte) (1 << rnd.nextInt(8));
      Files.write(file, bytes);
      try {
        read(List.of(new FileSplit(f.path.toUri().toString(), 0, bytes.length))).forEach(r -> { });
        fail("a flipped bit in page data was not found (checksums are on)");
      } catch (CorruptParquetException e) {
        assertTrue(e.getMessage().contains(f.path.toString()), e.getMessage());
      }
    }
  }

  @Test
  void emptyFileHasNoBatches() throws Exception {
    TestFiles f = TestFiles.write(dir.resolve("e.parquet"), 0, false, true, CompressionCodecName.SNAPPY, rnd);
    assertEquals(0, read(List.of(new FileSplit(f.path.toUri().toString(), 0,
        Files.size(Path.of(f.path.toUri()))))).size());
  }

  /** Every row of the splits' batches, downloaded, values as TestFiles keeps them. */
  private List<Object[]> read(List<FileSplit> splits) {
    List<Object[]> rows = new ArrayList<>();
    ScanSettings settings = new ScanSettings(1 + rnd.nextInt(400_000), 4, true, RowGroupPredicate.NONE,
        HostCodecs.SUPPORTED);
    List<String> names = TestFiles.COLUMNS.stream().map(ScanColumn::name).toList();
    try (ParquetBatchReader reader = new ParquetBatchReader(backend, stream, conf, splits, TestFiles.COLUMNS, settings,
        () -> { })) {
      while (reader.hasNext()) {
        try (DeviceBatch batch = reader.next();
            ArrowDownload download = ArrowDownload.begin(backend, batch, names, pageable, stream)) {
          List<FieldVector> vectors = download.complete();
          try {
            for (int r = 0; r < batch.rowCount(); r++) {
              Object[] row = new Object[vectors.size()];
              for (int c = 0; c < vectors.size(); c++) row[c] = value(vectors.get(c), TestFiles.COLUMNS.get(c).type(), r);
              rows.add(row);
            }
          } finally {
            vectors.forEach(FieldVector::close);
          }
        }
      }
    }
    return rows;
  }

  private static Object value(FieldVector v, DeviceType type, int r) {
    if (v.isNull(r)) return null;
    if (v instanceof BitVector b) return (long) b.get(r);
    if (v instanceof DecimalVector d) return ((BigDecimal) d.getObject(r)).unscaledValue().longValueExact();
    if (v instanceof BaseVariableWidthVector s) return s.get(r);
    long at = (long) r * type.width();
    return switch (type.width()) {
      case 1 -> (long) v.getDataBuffer().getByte(at);
      case 2 -> (long) v.getDataBuffer().getShort(at);
      case 4 -> (long) v.getDataBuffer().getInt(at);
      default -> v.getDataBuffer().getLong(at);
    };
  }

  private static void assertRows(TestFiles f, List<Object[]> actual, String what) {
    assertEquals(f.rows.size(), actual.size(), what + ": rows");
    for (int r = 0; r < actual.size(); r++) {
      for (int c = 0; c < TestFiles.COLUMNS.size(); c++) {
        Object e = f.rows.get(r)[c];
        Object a = actual.get(r)[c];
        String where = what + ": row " + r + " column " + TestFiles.COLUMNS.get(c).name();
        if (e instanceof byte[] b) {
          assertArrayEquals(b, (byte[]) a, where);
        } else {
          assertEquals(e, a, where);
        }
      }
    }
  }
}
