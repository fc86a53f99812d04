package io.sparkwarp.parquet;

import io.sparkwarp.kernels.memory.HostBlock;
import io.sparkwarp.kernels.memory.HostMemoryPool;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.hadoop.fs.FSDataInputStream;

/**
 * Reads byte ranges of one file (column chunks) into one block of pinned host memory: ranges less than
 * {@link #MAX_GAP} apart are read as one (the gap costs less than another request), and the merged ranges are cut
 * into pieces of at most {@link #PIECE} read by the reader threads in parallel with positioned reads.
 */
final class ChunkReader {
  /** Bytes between two ranges below which they are read as one. */
  static final long MAX_GAP = 1 << 20;
  /** Bytes one positioned read fetches at most. */
  private static final int PIECE = 8 << 20;

  private ChunkReader() {}

  /** Host memory holding the ranges, and where each range (in the order given) starts in it. */
  record Read(HostBlock block, long bytes, long[] offsets) implements AutoCloseable {
    @Override
    public void close() {
      block.close();
    }
  }

  /** Reads {@code ranges} ({start, length} pairs) of {@code in} into a block of {@code pool}. */
  static Read read(FSDataInputStream in, List<long[]> ranges, HostMemoryPool pool, ExecutorService threads) {
    Integer[] order = new Integer[ranges.size()];
    Arrays.setAll(order, i -> i);
    Arrays.sort(order, Comparator.comparingLong(i -> ranges.get(i)[0]));
    List<long[]> merged = new ArrayList<>();  // {file start, file end, host offset}
    long[] offsets = new long[ranges.size()];
    long total = 0;
    for (int i : order) {
      long start = ranges.get(i)[0];
      long end = start + ranges.get(i)[1];
      long[] last = merged.isEmpty() ? null : merged.get(merged.size() - 1);
      if (last != null && start - last[1] <= MAX_GAP && start >= last[0]) {
        if (end > last[1]) {
          total += end - last[1];
          last[1] = end;
        }
        offsets[i] = last[2] + start - last[0];
      } else {
        merged.add(new long[] {start, end, total});
        offsets[i] = total;
        total += end - start;
      }
    }
    HostBlock block = pool.allocate(total);
    try {
      List<Future<?>> pieces = new ArrayList<>();
      for (long[] m : merged) {
        for (long at = m[0]; at < m[1]; at += PIECE) {
          long from = at;
          int n = (int) Math.min(PIECE, m[1] - at);
          long host = block.address() + m[2] + (at - m[0]);
          pieces.add(threads.submit(() -> readPiece(in, from, n, host)));
        }
      }
      for (Future<?> f : pieces) f.get();
      return new Read(block, total, offsets);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      block.close();
      throw new IllegalStateException("interrupted while reading parquet column chunks", e);
    } catch (ExecutionException e) {
      block.close();
      throw e.getCause() instanceof UncheckedIOException u ? u : new UncheckedIOException(
          new IOException("reading parquet column chunks failed", e.getCause()));
    } catch (RuntimeException e) {
      block.close();
      throw e;
    }
  }

  /** One positioned read straight into pinned memory, or through a heap buffer when the stream cannot. */
  private static Void readPiece(FSDataInputStream in, long from, int n, long host) {
    try {
      if (in.hasCapability("in:preadbytebuffer")) {
        in.readFully(from, MemoryUtil.directBuffer(host, n));
      } else {
        byte[] buffer = new byte[n];
        in.readFully(from, buffer, 0, n);
        MemoryUtil.copyToMemory(buffer, 0, host, n);
      }
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
