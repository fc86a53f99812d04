package io.sparkwarp.parquet;

import java.io.EOFException;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.zip.CRC32;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.hadoop.fs.ChecksumException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pieces of a local file read with a {@link FileChannel} straight into pinned memory: one copy out of the page cache,
 * where Hadoop's local streams copy through a heap array first (a third of the rate: ChunkReadBenchmark).
 * Checksums are verified as Hadoop's {@link LocalFileSystem} verifies them, so what it rejects is rejected: its
 * {@code .crc} file beside the data ("crc\0", the bytes a checksum covers, then a CRC32 of every such chunk); none, or
 * one that does not start so, means no verification, and a chunk past the sums it holds is an error, as there.
 */
final class LocalPieceReader implements PieceReader {
  private static final Logger LOG = LoggerFactory.getLogger(LocalPieceReader.class);
  private static final byte[] MAGIC = {'c', 'r', 'c', 0};
  /** The magic and the bytes per checksum. */
  private static final int HEADER = MAGIC.length + 4;
  private static final int SUM = 4;

  private final Path path;
  private final FileChannel data;
  /** The checksum file, null when the data is not verified. */
  private final FileChannel sums;
  private final int bytesPerSum;
  private final long length;

  private LocalPieceReader(Path path, FileChannel data, FileChannel sums, int bytesPerSum) throws IOException {
    this.path = path;
    this.data = data;
    this.sums = sums;
    this.bytesPerSum = bytesPerSum;
    this.length = data.size();
  }

  /**
   * A reader of {@code file} when {@code fs} is Hadoop's local file system itself (checksummed or raw; not a class
   * derived from them, whose reads may differ), else null.
   */
  static PieceReader open(FileSystem fs, Path file) throws IOException {
    if (fs.getClass() == RawLocalFileSystem.class) {
      return new LocalPieceReader(file, channel(((RawLocalFileSystem) fs).pathToFile(file)), null, 0);
    }
    if (fs.getClass() != LocalFileSystem.class) return null;
    LocalFileSystem local = (LocalFileSystem) fs;
    if (local.getRaw().getClass() != RawLocalFileSystem.class) return null;
    FileChannel data = channel(local.pathToFile(file));
    if (!local.getVerifyChecksum()) return new LocalPieceReader(file, data, null, 0);
    FileChannel sums = null;
    try {
      sums = channel(local.pathToFile(local.getChecksumFile(file)));
      ByteBuffer header = ByteBuffer.allocate(HEADER);
      readFully(sums, header, 0);
      if (!Arrays.equals(Arrays.copyOf(header.array(), MAGIC.length), MAGIC)) {
        throw new IOException("Not a checksum file: " + local.getChecksumFile(file));
      }
      int bytesPerSum = header.getInt(MAGIC.length);
      if (bytesPerSum <= 0) throw new ChecksumException("Checksum file of " + file + " covers " + bytesPerSum
          + " bytes a chunk", 0);
      return new LocalPieceReader(file, data, sums, bytesPerSum);
    } catch (NoSuchFileException e) {
      close(sums);
      return new LocalPieceReader(file, data, null, 0);  // no checksums, quietly, as Hadoop
    } catch (ChecksumException e) {
      close(sums, data);
      throw e;
    } catch (IOException e) {
      LOG.warn("Problem opening checksum file: {}.  Ignoring exception: ", file, e);  // as Hadoop
      close(sums);
      return new LocalPieceReader(file, data, null, 0);
    } catch (RuntimeException e) {
      close(sums, data);
      throw e;
    }
  }

  @Override
  public void read(long from, int n, long host) throws IOException {
    ByteBuffer piece = MemoryUtil.directBuffer(host, n);
    readFully(data, piece, from);
    if (sums != null && n > 0) verify(from, piece);
  }

  /**
   * Checks every chunk that the piece read from {@code from} touches: the parts of the first and last chunks outside
   * it are read again (less than a chunk each).
   */
  private void verify(long from, ByteBuffer piece) throws IOException {
    long end = from + piece.capacity();
    long first = from / bytesPerSum;
    long last = (end - 1) / bytesPerSum;
    ByteBuffer stored = ByteBuffer.allocate(Math.toIntExact((last - first + 1) * SUM));
    readUpTo(sums, stored, HEADER + first * SUM);
    CRC32 crc = new CRC32();
    for (long chunk = first; chunk <= last; chunk++) {
      long start = chunk * bytesPerSum;
      int index = Math.toIntExact((chunk - first) * SUM);
      if (stored.position() < index + SUM) {
        throw new ChecksumException("Checksum error: " + path + " at " + start + " (no checksum for it)", start);
      }
      long stop = Math.min(start + bytesPerSum, length);
      crc.reset();
      if (start < from) crc.update(bytes(start, from));
      long s = Math.max(start, from);
      long e = Math.min(stop, end);
      crc.update(piece.limit((int) (e - from)).position((int) (s - from)));
      if (stop > end) crc.update(bytes(end, stop));
      if ((int) crc.getValue() != stored.getInt(index)) {
        throw new ChecksumException("Checksum error: " + path + " at " + start, start);
      }
    }
  }

  /** Bytes {@code [from, to)} of the data, a part of one chunk. */
  private ByteBuffer bytes(long from, long to) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate((int) (to - from));
    readFully(data, buffer, from);
    return buffer.flip();
  }

  private static void readFully(FileChannel channel, ByteBuffer target, long at) throws IOException {
    readUpTo(channel, target, at);
    if (target.hasRemaining()) throw new EOFException("End of file reached before reading fully.");
  }

  /** Fills {@code target} from {@code at} on, or as far as the file goes. */
  private static void readUpTo(FileChannel channel, ByteBuffer target, long at) throws IOException {
    for (long position = at; target.hasRemaining(); ) {
      int read = channel.read(target, position);
      if (read < 0) return;
      position += read;
    }
  }

  private static FileChannel channel(File file) throws IOException {
    return FileChannel.open(file.toPath(), StandardOpenOption.READ);
  }

  private static void close(FileChannel... channels) {
    for (FileChannel channel : channels) {
      if (channel == null) continue;
      try {
        channel.close();
      } catch (IOException ignored) {
        // nothing was written through it
      }
    }
  }

  @Override
  public void close() throws IOException {
    try (FileChannel d = data; FileChannel s = sums) {
      // both closed, whatever the other does
    }
  }
}
