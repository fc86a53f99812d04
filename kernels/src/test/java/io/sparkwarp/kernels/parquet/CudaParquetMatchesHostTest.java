package io.sparkwarp.kernels.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.testing.CudaVsHostTestBase;
import io.sparkwarp.kernels.testing.RandomVectors;
import io.sparkwarp.kernels.testing.VectorAssertions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.xerial.snappy.Snappy;

/**
 * {@code parquet.cu} against the host reference on fresh random input: Snappy, LZ4_RAW, Hadoop-framed LZ4 and ZSTD blocks
 * of every shape, columns of every type in every page shape and codec, columns in each of DELTA_LENGTH_BYTE_ARRAY,
 * DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT, and the same inputs with flipped bytes (both backends must raise, or both
 * decode to the same bytes or column), and batches of such columns decoded together; pages of parquet-mr's size and
 * strings of up to 12,000 bytes.
 */
@Tag("gpu")
class CudaParquetMatchesHostTest extends CudaVsHostTestBase {
  @Test
  void snappyBlocksMatch() throws IOException {
    for (int round = 0; round < 5; round++) {
      ByteArrayOutputStream in = new ByteArrayOutputStream();
      long out = 0;
      CompressedBlocks blocks = new CompressedBlocks();
      for (int b = 0; b < 500; b++) {
        byte[] raw = LzInputs.random(rnd);
        byte[] packed = Snappy.compress(raw);
        blocks.add(in.size(), packed.length, out, raw.length, CompressedBlocks.Codec.SNAPPY);
        in.writeBytes(packed);
        out += raw.length;
      }
      EncodedBlocks c = new EncodedBlocks(in.toByteArray(), out, blocks);
      assertArrayEquals(on(host, c), on(cuda, c), "round " + round);
    }
  }

  /**
   * Snappy pages of parquet-mr's 1 MiB (snappy-java's: independent 64 KiB fragments, each decoded by a warp of its
   * own), and streams whose copies read across fragments or run across their boundaries (which the device finds and
   * decodes whole), intact and damaged.
   */
  @Test
  void snappyFragmentsMatch() throws IOException {
    for (int round = 0; round < 6; round++) {
      ByteArrayOutputStream in = new ByteArrayOutputStream();
      long out = 0;
      CompressedBlocks blocks = new CompressedBlocks();
      for (int b = 0; b < 24; b++) {
        byte[][] block = b % 2 == 0 ? SnappyStreams.acrossFragments(1 + rnd.nextInt(20), rnd) : null;
        byte[] raw = block != null ? block[0] : LzInputs.of(rnd.nextInt(LzInputs.KINDS), 1 << 20, rnd);
        byte[] packed = block != null ? block[1] : Snappy.compress(raw);
        blocks.add(in.size(), packed.length, out, raw.length, CompressedBlocks.Codec.SNAPPY);
        in.writeBytes(packed);
        out += raw.length;
      }
      EncodedBlocks c = new EncodedBlocks(in.toByteArray(), out, blocks);
      if (round >= 3) Corruption.flip(c.input(), rnd);
      byte[] fromHost = decompressedOrNull(host, c);
      byte[] fromCuda = decompressedOrNull(cuda, c);
      assertEquals(fromHost == null, fromCuda == null, "round " + round);
      if (fromHost != null) assertArrayEquals(fromHost, fromCuda, "round " + round);
    }
  }

  @Test
  void lz4BlocksMatch() {
    for (int round = 0; round < 4; round++) {
      EncodedBlocks c = blocks(500, round == 0 ? CompressedBlocks.Codec.values()
          : new CompressedBlocks.Codec[] {CompressedBlocks.Codec.LZ4_RAW, CompressedBlocks.Codec.LZ4});
      assertArrayEquals(on(host, c), on(cuda, c), "round " + round);
    }
  }

  @Test
  void zstdBlocksMatch() {
    for (int round = 0; round < 4; round++) {
      EncodedBlocks c = blocks(500, new CompressedBlocks.Codec[] {CompressedBlocks.Codec.ZSTD});
      assertArrayEquals(on(host, c), on(cuda, c), "round " + round);
    }
  }

  @Test
  void corruptBlocksAreFoundByBoth() {
    for (int round = 0; round < 300; round++) {
      EncodedBlocks c = blocks(1 + rnd.nextInt(8), CompressedBlocks.Codec.values());
      Corruption.flip(c.input(), rnd);
      byte[] fromHost = decompressedOrNull(host, c);
      byte[] fromCuda = decompressedOrNull(cuda, c);
      if (fromCuda == null && stricterOnDevice(c.blocks())) continue;
      assertEquals(fromHost == null, fromCuda == null, "round " + round + ": host " + (fromHost == null ? "raised"
          : "decoded") + ", cuda the opposite");
      if (fromHost != null) assertArrayEquals(fromHost, fromCuda, "round " + round);
    }
  }

  /**
   * Whether the device may raise on damaged {@code blocks} that the host decodes: the device's ZSTD decoder is
   * stricter than libzstd (zstd-jni) on a few damaged frames (a magic damaged into a legacy format's, Huffman codes
   * of 12 bits), 4 of about 1,200 damaged columns on an H200; it raises on them, never decoding other values.
   */
  private static boolean stricterOnDevice(CompressedBlocks blocks) {
    for (int b = 0; b < blocks.count(); b++) {
      if (blocks.codec(b) == CompressedBlocks.Codec.ZSTD) return true;
    }
    return false;
  }

  /** {@code count} blocks of LzInputs, each in one of {@code codecs} at random. */
  private EncodedBlocks blocks(int count, CompressedBlocks.Codec[] codecs) {
    ByteArrayOutputStream in = new ByteArrayOutputStream();
    long out = 0;
    CompressedBlocks blocks = new CompressedBlocks();
    for (int b = 0; b < count; b++) {
      byte[] raw = LzInputs.random(rnd);
      CompressedBlocks.Codec codec = codecs[rnd.nextInt(codecs.length)];
      byte[] packed = TestCodecs.compress(codec, raw, rnd);
      blocks.add(in.size(), packed.length, out, raw.length, codec);
      in.writeBytes(packed);
      out += raw.length;
    }
    return new EncodedBlocks(in.toByteArray(), out, blocks);
  }

  private static byte[] decompressedOrNull(Backend backend, EncodedBlocks c) {
    try {
      return on(backend, c);
    } catch (ParquetDataException e) {
      return null;
    }
  }

  @Test
  void everyTypeMatches() {
    for (DeviceType type : RandomVectors.allTypes()) {
      for (int rows : new int[] {0, 1, 33, 4096, 100_000}) {
        try (FieldVector values = ParquetTesting.values(type, rows, rnd.nextBoolean(), rnd, allocator)) {
          EncodedColumn c = EncodedColumn.encode(values, EncodedColumn.specFor(type, rnd), rnd);
          String what = type + " x " + rows + " as " + c.spec;
          try (FieldVector fromHost = decoded(host, c); FieldVector fromCuda = decoded(cuda, c)) {
            VectorAssertions.assertVectorEquals(values, fromHost, what + " (host)");
            VectorAssertions.assertVectorEquals(fromHost, fromCuda, what);
          }
        }
      }
    }
  }

  /**
   * Pages of 2^17 rows, as parquet-mr's 1 MiB pages hold (a block's warps split each page), and PLAIN strings longer
   * than the 4 KiB window the walk reads through (plain_byte_array.cuh), intact and with flipped bytes.
   */
  @Test
  void largePagesAndLongStringsMatch() {
    for (DeviceType type : RandomVectors.allTypes()) {
      try (FieldVector values = ParquetTesting.values(type, 300_000, rnd.nextBoolean(), rnd, allocator)) {
        EncodedColumn c = EncodedColumn.encode(values, EncodedColumn.specFor(type, rnd), rnd, null, 1 << 17);
        String what = type + " in pages of 2^17 rows as " + c.spec;
        try (FieldVector fromHost = decoded(host, c); FieldVector fromCuda = decoded(cuda, c)) {
          VectorAssertions.assertVectorEquals(values, fromHost, what + " (host)");
          VectorAssertions.assertVectorEquals(fromHost, fromCuda, what);
        }
      }
    }
    for (int round = 0; round < 20; round++) {
      try (VarCharVector values = new VarCharVector("long", allocator)) {
        int rows = 1 + rnd.nextInt(3000);
        values.allocateNew(rows);
        for (int r = 0; r < rows; r++) {
          if (rnd.nextInt(10) == 0) continue;  // null
          byte[] bytes = new byte[rnd.nextInt(4) == 0 ? rnd.nextInt(12_000) : rnd.nextInt(60)];
          rnd.nextBytes(bytes);
          values.setSafe(r, bytes);
        }
        values.setValueCount(rows);
        EncodedColumn c = EncodedColumn.encode(values, EncodedColumn.specFor(DeviceType.STRING, rnd), rnd,
            round % 2 == 0 ? PageTable.Kind.PLAIN : null, rnd.nextBoolean() ? 0 : 1 << 10);
        if (round % 4 == 3) Corruption.flip(c.input, rnd);
        assertBothRaiseOrMatch(c, "long strings round " + round);
      }
    }
  }

  @Test
  void deltaAndSplitEncodingsMatch() {
    for (ParquetTesting.Encoded e : ParquetTesting.ENCODED) {
      for (int rows : new int[] {0, 1, 33, 4096, 100_000}) {
        try (FieldVector values = ParquetTesting.valuesFor(e.spec(), rows, rows > 1 || rnd.nextBoolean(), rnd,
            allocator)) {
          EncodedColumn c = EncodedColumn.encode(values, e.spec(), rnd, e.kind());
          String what = e + " x " + rows;
          try (FieldVector fromHost = decoded(host, c); FieldVector fromCuda = decoded(cuda, c)) {
            VectorAssertions.assertVectorEquals(values, fromHost, what + " (host)");
            VectorAssertions.assertVectorEquals(fromHost, fromCuda, what);
          }
        }
      }
    }
  }

  @Test
  void corruptDeltaAndSplitPagesAreFoundByBoth() {
    for (int round = 0; round < 300; round++) {
      ParquetTesting.Encoded e = ParquetTesting.ENCODED.get(rnd.nextInt(ParquetTesting.ENCODED.size()));
      try (FieldVector values = ParquetTesting.valuesFor(e.spec(), 1 + rnd.nextInt(5000), true, rnd, allocator)) {
        EncodedColumn c = EncodedColumn.encode(values, e.spec(), rnd, e.kind());
        Corruption.flip(c.input, rnd);
        assertBothRaiseOrMatch(c, "round " + round + " " + e);
      }
    }
  }

  @Test
  void convertingFormsMatch() {
    for (ColumnSpec spec : ParquetTesting.CONVERTING) {
      for (int round = 0; round < 8; round++) {
        try (FieldVector values = ParquetTesting.valuesFor(spec, rnd.nextInt(20_000), rnd.nextBoolean(), rnd,
            allocator)) {
          boolean small = round % 2 == 0;  // else most milliseconds overflow: both must say so
          if (small) ParquetTesting.shrinkMillis(spec, values);
          EncodedColumn c = EncodedColumn.encode(values, spec, rnd);
          FieldVector fromHost = decodedOrNull(host, c);
          FieldVector fromCuda = decodedOrNull(cuda, c);
          try {
            assertEquals(fromHost == null, fromCuda == null, spec + ": host " + (fromHost == null ? "raised"
                : "decoded") + ", cuda the opposite");
            if (fromHost != null) VectorAssertions.assertVectorEquals(fromHost, fromCuda, spec + " round " + round);
          } finally {
            if (fromHost != null) fromHost.close();
            if (fromCuda != null) fromCuda.close();
          }
        }
      }
    }
  }

  @Test
  void corruptInputIsFoundByBoth() {
    for (int round = 0; round < 300; round++) {
      DeviceType type = RandomVectors.allTypes()[rnd.nextInt(RandomVectors.allTypes().length)];
      try (FieldVector values = ParquetTesting.values(type, 1 + rnd.nextInt(5000), true, rnd, allocator)) {
        EncodedColumn c = EncodedColumn.encode(values, EncodedColumn.specFor(type, rnd), rnd);
        Corruption.flip(c.input, rnd);
        assertBothRaiseOrMatch(c, "round " + round + " " + c.spec);
      }
    }
  }

  /**
   * Batches of columns of random types, decoded together (one wait on the device), intact and damaged: both backends
   * raise for the same column (or block), or decode every column alike.
   */
  @Test
  void batchesMatch() {
    for (int round = 0; round < 80; round++) {
      List<FieldVector> values = new ArrayList<>();
      try {
        List<EncodedColumn> columns = new ArrayList<>();
        int rows = round % 10 == 0 ? 0 : 1 + rnd.nextInt(round % 2 == 0 ? 100_000 : 5000);
        for (int c = 0; c < 1 + rnd.nextInt(12); c++) {
          DeviceType type = RandomVectors.allTypes()[rnd.nextInt(RandomVectors.allTypes().length)];
          values.add(ParquetTesting.values(type, rows, rnd.nextBoolean(), rnd, allocator));
          columns.add(EncodedColumn.encode(values.get(c), EncodedColumn.specFor(type, rnd), rnd));
        }
        EncodedBatch batch = EncodedBatch.of(columns);
        if (round % 2 == 1) Corruption.flip(batch.input(), rnd);
        String what = "round " + round + " " + batch.specs();
        Decoded fromHost = Decoded.on(host, batch, allocator);
        Decoded fromCuda = Decoded.on(cuda, batch, allocator);
        try {
          // the device may reject a damaged ZSTD block the host inflates (stricterOnDevice), and the host may then
          // fail on the pages of what it inflated: both raise, at different places
          boolean deviceRejectsBlock = fromCuda.error() != null && (fromHost.error() == null
              || fromCuda.error().column() < 0 && fromHost.error().column() >= 0);
          if (deviceRejectsBlock && stricterOnDevice(batch.blocks())) continue;
          assertEquals(fromHost.error() == null, fromCuda.error() == null, what + ": host " + fromHost.error()
              + ", cuda " + fromCuda.error());
          if (fromHost.error() != null) {
            assertEquals(fromHost.error().column(), fromCuda.error().column(), what);
          } else {
            for (int c = 0; c < columns.size(); c++) {
              if (round % 2 == 0) {
                VectorAssertions.assertVectorEquals(values.get(c), fromHost.columns().get(c), what + " (host)");
              }
              VectorAssertions.assertVectorEquals(fromHost.columns().get(c), fromCuda.columns().get(c),
                  what + " column " + c);
            }
          }
        } finally {
          fromHost.close();
          fromCuda.close();
        }
      } finally {
        Closeables.closeAll(values);
      }
    }
  }

  /** A batch's columns, or the error that decoding it raised. */
  private record Decoded(List<FieldVector> columns, ParquetDataException error) implements AutoCloseable {
    static Decoded on(Backend backend, EncodedBatch batch, BufferAllocator allocator) {
      try {
        return new Decoded(batch.decode(backend, allocator), null);
      } catch (ParquetDataException e) {
        return new Decoded(List.of(), e);
      }
    }

    @Override
    public void close() {
      Closeables.closeAll(columns);
    }
  }

  /** Both backends raise on {@code c}, or both decode it to the same column. */
  private void assertBothRaiseOrMatch(EncodedColumn c, String what) {
    FieldVector fromHost = decodedOrNull(host, c);
    FieldVector fromCuda = decodedOrNull(cuda, c);
    try {
      if (fromCuda == null && stricterOnDevice(c.blocks)) return;
      assertEquals(fromHost == null, fromCuda == null, what + " " + c.codecs() + ": host "
          + (fromHost == null ? "raised" : "decoded") + ", cuda the opposite");
      if (fromHost != null) VectorAssertions.assertVectorEquals(fromHost, fromCuda, what);
    } finally {
      if (fromHost != null) fromHost.close();
      if (fromCuda != null) fromCuda.close();
    }
  }

  private static byte[] on(Backend backend, EncodedBlocks c) {
    try (DeviceStream s = backend.newStream()) {
      return c.decompress(backend, s);
    }
  }

  private FieldVector decoded(Backend backend, EncodedColumn c) {
    try (DeviceStream s = backend.newStream()) {
      return ParquetTesting.download(backend, ParquetTesting.decode(backend, c, s), allocator, s);
    }
  }

  /** The decoded column, or null when the backend found the input corrupt. */
  private FieldVector decodedOrNull(Backend backend, EncodedColumn c) {
    try {
      return decoded(backend, c);
    } catch (ParquetDataException e) {
      return null;
    }
  }
}
