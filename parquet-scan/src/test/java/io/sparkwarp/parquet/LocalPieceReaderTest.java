package io.sparkwarp.parquet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.util.Random;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.fs.ChecksumFileSystem;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Local files read straight into native memory: every piece as written (whatever its alignment to the checksum
 * chunks), and Hadoop's checksums verified as its LocalFileSystem does: a flipped byte fails exactly the pieces
 * whose chunks hold it, a missing or foreign checksum file means no verification, a short one fails the chunks past
 * it.
 */
class LocalPieceReaderTest {
  private final Random rnd = new Random();
  private final Configuration conf = new Configuration();

  @TempDir
  java.nio.file.Path dir;

  @Test
  void everyPieceReadsAsWritten() throws IOException {
    for (int bytesPerSum : new int[] {512, 100}) {  // 100 divides no piece boundary
      Configuration own = new Configuration(conf);
      own.setInt("file.bytes-per-checksum", bytesPerSum);
      LocalFileSystem fs = local(own);
      for (int round = 0; round < 10; round++) {
        Path file = path("w" + bytesPerSum + "-" + round);
        byte[] bytes = write(fs, file, rnd.nextInt(3 << 20));
        assertEquals(ChecksumFileSystem.getChecksumLength(bytes.length, bytesPerSum),
            Files.size(dir.resolve("." + file.getName() + ".crc")), "a sum every " + bytesPerSum + " bytes");
        try (PieceReader checked = LocalPieceReader.open(fs, file);
            PieceReader raw = LocalPieceReader.open(fs.getRaw(), file)) {
          for (int piece = 0; piece < 20; piece++) {
            int from = bytes.length == 0 ? 0 : rnd.nextInt(bytes.length);
            int n = rnd.nextInt(bytes.length - from + 1);
            assertArrayEquals(slice(bytes, from, n), read(checked, from, n), file + " at " + from + " +" + n);
            assertArrayEquals(slice(bytes, from, n), read(raw, from, n), file + " raw at " + from + " +" + n);
          }
        }
      }
    }
  }

  @Test
  void aFlippedByteFailsThePiecesOfItsChunk() throws IOException {
    LocalFileSystem fs = local(conf);
    for (int round = 0; round < 10; round++) {
      Path file = path("f" + round);
      byte[] bytes = write(fs, file, 1 + rnd.nextInt(1 << 20));
      int flipped = rnd.nextInt(bytes.length);
      flip(file, flipped);
      long chunkStart = flipped / 512 * 512;
      long chunkEnd = Math.min(bytes.length, chunkStart + 512);
      try (PieceReader reader = LocalPieceReader.open(fs, file)) {
        for (int piece = 0; piece < 50; piece++) {
          int from = rnd.nextInt(bytes.length);
          int n = 1 + rnd.nextInt(bytes.length - from);
          if (piece % 5 == 0) {  // pieces near the flipped byte
            from = (int) Math.max(0, flipped - rnd.nextInt(1100));
            n = 1 + rnd.nextInt(Math.min(1100, bytes.length - from));
          }
          boolean touches = from < chunkEnd && from + n > chunkStart;
          int f = from;
          int len = n;
          if (touches) {
            ChecksumException e = assertThrows(ChecksumException.class, () -> read(reader, f, len));
            assertEquals(chunkStart, e.getPos());
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
          } else {
            assertArrayEquals(slice(bytes, from, n), read(reader, from, n));
          }
        }
      }
    }
  }

  @Test
  void withoutChecksumsNothingIsVerified() throws IOException {
    LocalFileSystem fs = local(conf);
    assertReadsUnchecked(fs, "missing", () -> Files.delete(dir.resolve(".missing.crc")));
    // the magic no longer "crc\0": Hadoop warns and reads unchecked
    assertReadsUnchecked(fs, "foreign", () -> flipCrc(dir.resolve(".foreign.crc"), 0));
    LocalFileSystem unchecked = local(conf);
    unchecked.setVerifyChecksum(false);
    assertReadsUnchecked(unchecked, "off", () -> { });
  }

  private interface Change {
    void apply() throws IOException;
  }

  /** A file with a flipped byte, after {@code change} to its checksums, reads with the byte flipped, no error. */
  private void assertReadsUnchecked(LocalFileSystem fs, String name, Change change) throws IOException {
    Path file = path(name);
    byte[] bytes = write(fs, file, 5000);
    int at = rnd.nextInt(bytes.length);
    flip(file, at);
    bytes[at] ^= 1;
    change.apply();
    try (PieceReader reader = LocalPieceReader.open(fs, file)) {
      assertArrayEquals(bytes, read(reader, 0, bytes.length), name);
    }
  }

  @Test
  void chunksPastAShortChecksumFileFail() throws IOException {
    LocalFileSystem fs = local(conf);
    Path file = path("short");
    byte[] bytes = write(fs, file, 10 * 512 + 7);
    try (RandomAccessFile crc = new RandomAccessFile(dir.resolve(".short.crc").toFile(), "rw")) {
      crc.setLength(8 + 4 * 6 + 2);  // sums of chunks 0-5, half of chunk 6's
    }
    try (PieceReader reader = LocalPieceReader.open(fs, file)) {
      assertArrayEquals(slice(bytes, 100, 6 * 512 - 100), read(reader, 100, 6 * 512 - 100));
      ChecksumException e = assertThrows(ChecksumException.class, () -> read(reader, 100, 6 * 512));
      assertEquals(6 * 512, e.getPos());
    }
  }

  @Test
  void onlyHadoopsOwnLocalFileSystemsAreReadDirectly() throws IOException {
    LocalFileSystem fs = local(conf);
    Path file = path("kinds");
    write(fs, file, 10);
    try (PieceReader checked = PieceReader.of(conf).open(file)) {
      assertInstanceOf(LocalPieceReader.class, checked);
    }
    LocalFileSystem derived = new LocalFileSystem() { };
    derived.initialize(file.toUri(), conf);
    assertNull(LocalPieceReader.open(derived, file));
    RawLocalFileSystem derivedRaw = new RawLocalFileSystem() { };
    derivedRaw.initialize(file.toUri(), conf);
    assertNull(LocalPieceReader.open(derivedRaw, file));
  }

  private LocalFileSystem local(Configuration configuration) throws IOException {
    return (LocalFileSystem) FileSystem.newInstance(dir.toUri(), configuration);
  }

  private Path path(String name) {
    return new Path(dir.resolve(name).toUri());
  }

  /** {@code length} random bytes written through {@code fs}, its checksum file beside them. */
  private byte[] write(FileSystem fs, Path file, int length) throws IOException {
    byte[] bytes = new byte[length];
    rnd.nextBytes(bytes);
    try (FSDataOutputStream out = fs.create(file)) {
      out.write(bytes);
    }
    return bytes;
  }

  private void flip(Path file, long at) throws IOException {
    flipCrc(java.nio.file.Path.of(file.toUri()), at);
  }

  private static void flipCrc(java.nio.file.Path file, long at) throws IOException {
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.seek(at);
      int b = raf.read();
      raf.seek(at);
      raf.write(b ^ 1);
    }
  }

  private static byte[] read(PieceReader reader, long from, int n) throws IOException {
    ByteBuffer target = ByteBuffer.allocateDirect(Math.max(1, n));
    reader.read(from, n, MemoryUtil.getByteBufferAddress(target));
    byte[] out = new byte[n];
    target.get(out, 0, n);
    return out;
  }

  private static byte[] slice(byte[] bytes, int from, int n) {
    byte[] out = new byte[n];
    System.arraycopy(bytes, from, out, 0, n);
    return out;
  }
}
