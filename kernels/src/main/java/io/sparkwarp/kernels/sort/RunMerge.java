package io.sparkwarp.kernels.sort;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.BatchConcatenator;
import io.sparkwarp.kernels.batch.BatchRange;
import io.sparkwarp.kernels.batch.BatchSlicer;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * A stable merge of sorted runs on the device, holding only a piece of each at a time: the out-of-core sort's last
 * step. Each round concatenates every run's window (its fetched rows not yet emitted), in run order, and sorts it
 * with {@link DeviceSort}; it emits the sorted rows up to and including the first window's last row of a run with
 * more rows to fetch. Every row after that is at least that row's key, and so is every row still unfetched (a run's
 * later rows are at least its window's last), so the output is in order; a run's emitted rows are a prefix of its
 * window, so the windows stay runs. Each round empties at least one window, whatever the keys (all equal, all null),
 * and fetches that run's next piece. Among equal keys earlier runs come first, as in one stable sort of the runs'
 * concatenation.
 */
public final class RunMerge implements AutoCloseable {
  /** A sorted run read front to back. */
  public interface Run {
    boolean hasMore();

    /** The run's next rows, at least one, as a batch the caller owns; only while {@link #hasMore()}. */
    DeviceBatch next();
  }

  private final Backend backend;
  private final List<SortKey> keys;
  private final List<? extends Run> runs;
  /** Per run, the piece last fetched while it has rows not yet emitted (its window); null when there are none. */
  private final DeviceBatch[] windows;
  /** Per run, the window's first row not yet emitted. */
  private final int[] from;
  private final DeviceStream stream;

  public RunMerge(Backend backend, List<? extends Run> runs, List<SortKey> keys, DeviceStream stream) {
    this.backend = backend;
    this.runs = List.copyOf(runs);
    this.keys = List.copyOf(keys);
    this.windows = new DeviceBatch[runs.size()];
    this.from = new int[runs.size()];
    this.stream = stream;
  }

  /** The next rows in order, as a batch the caller owns; null once every run is emitted. */
  public DeviceBatch next() {
    List<Integer> live = new ArrayList<>();
    for (int r = 0; r < windows.length; r++) {
      if (windows[r] == null && runs.get(r).hasMore()) windows[r] = runs.get(r).next();
      if (windows[r] != null) live.add(r);
    }
    if (live.isEmpty()) return null;
    if (live.size() == 1) return take(live.get(0));
    List<BatchRange> parts = live.stream().map(this::window).toList();
    try (DeviceBatch merged = BatchConcatenator.concatRanges(backend, parts, stream);
        DeviceBuffer order = DeviceSort.order(backend, merged, keys, stream)) {
      int[] starts = new int[live.size() + 1];
      boolean[] bounds = new boolean[merged.rowCount()];  // the last row of each window whose run goes on
      for (int w = 0; w < live.size(); w++) {
        starts[w + 1] = starts[w] + parts.get(w).rows();
        if (runs.get(live.get(w)).hasMore()) bounds[starts[w + 1] - 1] = true;
      }
      int[] emitted = emittedRows(readInts(order, merged.rowCount()), starts, bounds);
      int count = 0;
      for (int e : emitted) count += e;
      DeviceBatch out = backend.joins().gather(merged, order, count, stream);
      for (int w = 0; w < live.size(); w++) dropFront(live.get(w), emitted[w]);
      return out;
    }
  }

  /**
   * How many rows of each window a round emits: those of {@code order} (the windows' concatenation sorted, windows
   * at {@code starts}) up to and including the first row marked in {@code bounds}, or all without one.
   */
  static int[] emittedRows(int[] order, int[] starts, boolean[] bounds) {
    int[] emitted = new int[starts.length - 1];
    for (int row : order) {
      int w = Arrays.binarySearch(starts, row);  // windows are never empty: the starts increase
      emitted[w >= 0 ? w : -w - 2]++;
      if (bounds[row]) break;
    }
    return emitted;
  }

  /** Run {@code r}'s window as a range of its piece (the piece whole until the merge emits some of it). */
  private BatchRange window(int r) {
    DeviceBatch piece = windows[r];
    if (from[r] == 0) return BatchRange.whole(piece);
    return BatchSlicer.ranges(backend, piece, new int[] {from[r]}, new int[] {piece.rowCount() - from[r]}, stream)
        .get(0);
  }

  /** Run {@code r}'s window as a batch of its own, the run left without one. */
  private DeviceBatch take(int r) {
    DeviceBatch piece = windows[r];
    windows[r] = null;
    int first = from[r];
    from[r] = 0;
    if (first == 0) return piece;
    try (piece) {
      return BatchSlicer.slice(backend, piece, first, piece.rowCount() - first, stream);
    }
  }

  /** Drops the first {@code rows} rows of run {@code r}'s window; the piece is freed once none are left. */
  private void dropFront(int r, int rows) {
    from[r] += rows;
    if (from[r] < windows[r].rowCount()) return;
    windows[r].close();
    windows[r] = null;
    from[r] = 0;
  }

  private int[] readInts(DeviceBuffer buffer, int count) {
    try (HostBlock host = backend.transferMemory().pool().allocate(4L * Math.max(1, count))) {
      backend.copyDeviceToHost(buffer, 0, host.address(), 4L * count, stream);
      stream.synchronize();
      int[] values = new int[count];
      for (int i = 0; i < count; i++) values[i] = MemoryUtil.getInt(host.address() + 4L * i);
      return values;
    }
  }

  /** Frees the windows; the runs are the caller's. */
  @Override
  public void close() {
    List<DeviceBatch> open = new ArrayList<>();
    for (int r = 0; r < windows.length; r++) {
      if (windows[r] != null) open.add(windows[r]);
      windows[r] = null;
    }
    Closeables.closeAll(open);
  }
}
