package io.sparkwarp.parquet;

import io.sparkwarp.kernels.memory.HostBlock;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

/**
 * Reads byte ranges (column chunks, or single pages of them) of several files into one block of pinned host memory,
 * the files one after another: ranges of a file less than {@link #MAX_GAP} apart are read as one (the gap costs less
 * than another request) unless a range asks to join only adjacent ones (pages chosen by the column indexes: the
 * pages between are what the scan leaves out), and the merged ranges are cut into pieces of at most {@link #PIECE}
 * read by the reader threads in parallel with positioned reads, every file's at once, each file through its own
 * {@link PieceReader}.
 */
final class ChunkReader {
  /** Bytes between two ranges below which they are read as one. */
  static final long MAX_GAP = 1 << 20;
  /** Bytes one positioned read fetches at most. */
  private static final int PIECE = 8 << 20;

  private ChunkReader() {}

  /**
   * Where the ranges go in the block: per file, its merged reads ({file start, file end, block offset}) and the block
   * offset of each of its ranges (in the order given); {@code bytes} in all.
   */
  record Layout(List<List<long[]>> reads, List<long[]> offsets, long bytes) {}

  /**
   * The layout of {@code ranges}: per file, {start, length} pairs, or {start, length, 0} for a range joined to the one
   * before only when adjacent.
   */
  static Layout layout(List<List<long[]>> ranges) {
    List<List<long[]>> reads = new ArrayList<>();
    List<long[]> offsets = new ArrayList<>();
    long total = 0;
    for (List<long[]> file : ranges) {
      Integer[] order = new Integer[file.size()];
      Arrays.setAll(order, i -> i);
      Arrays.sort(order, Comparator.comparingLong(i -> file.get(i)[0]));
      List<long[]> merged = new ArrayList<>();
      long[] at = new long[file.size()];
      for (int i : order) {
        long start = file.get(i)[0];
        long end = start + file.get(i)[1];
        long[] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
        long gap = file.get(i).length > 2 ? file.get(i)[2] : MAX_GAP;
        if (last != null && start - last[1] <= gap && start >= last[0]) {
          if (end > last[1]) {
            total += end - last[1];
            last[1] = end;
          }
          at[i] = last[2] + start - last[0];
        } else {
          merged.add(new long[] {start, end, total});
          at[i] = total;
          total += end - start;
        }
      }
      reads.add(merged);
      offsets.add(at);
    }
    return new Layout(reads, offsets, total);
  }

  /**
   * Reads the ranges of {@code files} (in the layout's order) into {@code block} where {@code layout} puts them.
   * Returns or throws only once no read is under way, so the block may be freed then.
   *
   * @throws CorruptParquetException naming the first file that could not be read
   */
  static void read(List<Path> files, Layout layout, Configuration conf, HostBlock block, ExecutorService threads) {
    read(files, layout, PieceReader.of(conf), block, threads);
  }

  /** As {@link #read(List, Layout, Configuration, HostBlock, ExecutorService)}, each file opened by {@code opener}. */
  static void read(List<Path> files, Layout layout, PieceReader.Opener opener, HostBlock block,
      ExecutorService threads) {
    List<PieceReader> readers = new ArrayList<>();
    List<List<Future<Void>>> pieces = new ArrayList<>();
    CorruptParquetException failure = null;
    for (int f = 0; f < files.size() && failure == null; f++) {
      List<Future<Void>> own = new ArrayList<>();
      pieces.add(own);
      try {
        PieceReader in = opener.open(files.get(f));
        readers.add(in);
        for (long[] m : layout.reads().get(f)) {
          // pieces end at multiples of PIECE in the file, so only a read's ends cut a checksum chunk
          for (long at = m[0], next; at < m[1]; at = next) {
            next = Math.min(m[1], (at / PIECE + 1) * PIECE);
            long from = at;
            int n = (int) (next - at);
            long host = block.address() + m[2] + (at - m[0]);
            own.add(threads.submit(() -> {
              in.read(from, n, host);
              return null;
            }));
          }
        }
      } catch (IOException | RuntimeException e) {
        failure = cannotRead(files.get(f), e);
      }
    }
    boolean interrupted = false;
    for (int f = 0; f < pieces.size(); f++) {
      for (Future<Void> piece : pieces.get(f)) {
        while (true) {
          try {
            piece.get();
            break;
          } catch (InterruptedException e) {
            interrupted = true;  // the pieces still write to the block: wait for them all the same
          } catch (ExecutionException e) {
            if (failure == null) failure = cannotRead(files.get(f), e.getCause());
            break;
          }
        }
      }
    }
    for (int f = 0; f < readers.size(); f++) {
      try {
        readers.get(f).close();
      } catch (IOException e) {
        if (failure == null) failure = cannotRead(files.get(f), e);
      }
    }
    if (interrupted) Thread.currentThread().interrupt();
    if (failure != null) throw failure;
  }

  private static CorruptParquetException cannotRead(Path file, Throwable cause) {
    return new CorruptParquetException("cannot read parquet file " + file + ": " + cause.getMessage(), cause);
  }
}
