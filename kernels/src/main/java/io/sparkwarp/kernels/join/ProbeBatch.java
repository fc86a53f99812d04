package io.sparkwarp.kernels.join;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The probe side of one batch, probed in chunks: its keys, an optional selection (the rows a probe-side filter
 * kept), the optional bitmap of its rows that found a match (owned; for left outer, semi and anti joins), and the
 * candidate counts chunk planning reads once per table. Keys and selection are not owned.
 */
public final class ProbeBatch implements AutoCloseable {
  private final JoinKeys keys;
  private final DeviceBuffer selection;
  private final DeviceBuffer matches;
  private HashTable countedFor;
  private long[] groupCandidates;
  private final AtomicBoolean closed = new AtomicBoolean();

  /**
   * @param selection Arrow-order bitmap of the rows to probe (a set bit keeps the row), or null for all rows
   * @param trackMatches whether probes mark the rows that matched in {@link #matches()} (allocated zeroed here)
   */
  public ProbeBatch(Backend backend, JoinKeys keys, DeviceBuffer selection, boolean trackMatches,
      DeviceStream stream) {
    long bitmapBytes = (keys.rowCount() + 7L) / 8;
    if (selection != null) selection.checkRange(0, bitmapBytes);
    this.keys = keys;
    this.selection = selection;
    if (trackMatches) {
      matches = backend.allocate(bitmapBytes, stream);
      try {
        backend.fill(matches, 0, bitmapBytes, (byte) 0, stream);
      } catch (RuntimeException e) {
        matches.close();
        throw e;
      }
    } else {
      matches = null;
    }
  }

  public JoinKeys keys() {
    return keys;
  }

  public int rowCount() {
    return keys.rowCount();
  }

  /** The selection bitmap, or null when every row is probed. */
  public DeviceBuffer selection() {
    return selection;
  }

  /** The bitmap of rows that matched so far, or null when not tracked. */
  public DeviceBuffer matches() {
    return matches;
  }

  /** Candidates per group of rows against {@code table}, if counted already. */
  synchronized long[] groupCandidates(HashTable table) {
    return countedFor == table ? groupCandidates : null;
  }

  synchronized void setGroupCandidates(HashTable table, long[] counts) {
    countedFor = table;
    groupCandidates = counts;
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true) && matches != null) matches.close();
  }
}
