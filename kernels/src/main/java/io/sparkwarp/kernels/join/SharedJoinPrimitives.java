package io.sparkwarp.kernels.join;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.DeviceReadback;

/**
 * {@link JoinPrimitives} over a backend's {@link JoinKernels}: table sizes, allocations, the build steps,
 * statistics read-back, and the planning of bounded probe chunks, shared by the CUDA and the host backend.
 *
 * <p>Chunks: a chunk covers a range of candidate positions (probe row, offset among its bucket entries) whose
 * candidates fit the capacity, so it never writes more pairs than it has room for, and a key matching 10^8 build
 * rows streams out in several chunks. A unique table has at most one candidate per row, so a chunk is {@code
 * capacity} rows. A multi-match table needs no counting while (rows left) x (longest bucket) fits; otherwise the
 * batch's candidates are counted once per {@value #COUNT_GROUP} rows, and then row by row in the group where a
 * chunk ends.
 */
public final class SharedJoinPrimitives implements JoinPrimitives {
  /** Rows per coarse candidate count. */
  static final int COUNT_GROUP = 1024;

  private final Backend backend;
  private final JoinKernels kernels;

  public SharedJoinPrimitives(Backend backend, JoinKernels kernels) {
    this.backend = backend;
    this.kernels = kernels;
  }

  @Override
  public void hash(JoinKeys keys, DeviceBuffer hashes, DeviceStream stream) {
    hashes.checkRange(0, 8L * keys.rowCount());
    if (keys.rowCount() > 0) kernels.hash(keys, hashes, stream);
  }

  // ---- Build ----

  @Override
  public HashTable buildUnique(JoinKeys keys, DeviceStream stream) {
    long slots = powerOfTwoAtLeast(2L * keys.rowCount());
    DeviceBuffer table = backend.allocate(8 * slots, stream);
    try {
      backend.fill(table, 0, 8 * slots, (byte) 0xFF, stream);
      long[] status;
      try (DeviceBuffer flags = backend.allocate(8, stream)) {
        backend.fill(flags, 0, 8, (byte) 0, stream);
        if (keys.rowCount() > 0) kernels.insertUnique(keys, table, slots - 1, flags, stream);
        status = DeviceReadback.ints(backend, flags, 0, 2, stream);
      }
      if (status[0] != 0) {
        table.close();
        return null;
      }
      long entries = status[1];
      return new HashTable(TableKind.UNIQUE, keys, table, null, slots, entries, Math.min(entries, 1), entries);
    } catch (RuntimeException e) {
      table.close();
      throw e;
    }
  }

  @Override
  public HashTable buildMulti(JoinKeys keys, DeviceStream stream) {
    int rows = keys.rowCount();
    long buckets = powerOfTwoAtLeast(rows);
    DeviceBuffer offsets = backend.allocate(4 * (buckets + 1), stream);
    DeviceBuffer entries = null;
    try {
      backend.fill(offsets, 0, 4 * (buckets + 1), (byte) 0, stream);
      entries = backend.allocate(8L * Math.max(rows, 1), stream);
      if (rows > 0) kernels.countBuckets(keys, offsets, buckets - 1, stream);
      kernels.exclusiveSum(offsets, buckets, stream);
      if (rows > 0) {
        try (DeviceBuffer cursor = backend.allocate(4 * buckets, stream)) {
          backend.copyDeviceToDevice(offsets, 0, cursor, 0, 4 * buckets, stream);
          kernels.scatterBuckets(keys, cursor, buckets - 1, entries, stream);
        }
      }
      long[] stats;
      try (DeviceBuffer out = backend.allocate(24, stream)) {
        backend.fill(out, 0, 24, (byte) 0, stream);
        kernels.bucketStats(offsets, buckets, out, stream);
        backend.copyDeviceToDevice(offsets, 4 * buckets, out, 16, 4, stream);
        stats = DeviceReadback.longs(backend, out, 3, stream);
      }
      return new HashTable(TableKind.MULTI, keys, entries, offsets, buckets, stats[2], stats[0], stats[1]);
    } catch (RuntimeException e) {
      offsets.close();
      if (entries != null) entries.close();
      throw e;
    }
  }

  /** The smallest power of two at least {@code n}, and at least 2. */
  static long powerOfTwoAtLeast(long n) {
    return n <= 2 ? 2 : Long.highestOneBit(n - 1) << 1;
  }

  // ---- Probe ----

  @Override
  public ProbeResult probe(HashTable table, ProbeBatch batch, ProbePosition from, int capacity, ProbeVariant variant,
      DeviceBuffer buildMatches, DeviceStream stream) {
    table.buildKeys().checkComparable(batch.keys());
    if (capacity < 1) throw new IllegalArgumentException("a probe chunk needs room for a pair, not " + capacity);
    if (buildMatches != null) buildMatches.checkRange(0, (table.rowCount() + 7L) / 8);
    if (variant == ProbeVariant.PUSH_DOWN && table.isUnique()) {
      throw new IllegalArgumentException("push-down expands multi-match buckets; a unique table has at most one "
          + "match per row (probe it naive or refill)");
    }
    int rows = batch.rowCount();
    Chunk chunk = from.isEnd(rows) ? new Chunk(new ProbePosition(rows, 0), 0) : plan(table, batch, from, capacity,
        stream);
    boolean last = chunk.end().isEnd(rows);
    DeviceBuffer probeRows = backend.allocate(4 * Math.max(1, chunk.candidates()), stream);
    DeviceBuffer buildRows = null;
    try {
      buildRows = backend.allocate(4 * Math.max(1, chunk.candidates()), stream);
      long[] counters = {0, 0, 0};
      if (chunk.candidates() > 0) {
        try (DeviceBuffer out = backend.allocate(24, stream)) {
          backend.fill(out, 0, 24, (byte) 0, stream);
          kernels.probe(new JoinKernels.ProbeLaunch(table, batch, variant, from.row(), from.offset(),
              chunk.end().row(), chunk.end().offset(), buildMatches, probeRows, buildRows, out), stream);
          counters = DeviceReadback.longs(backend, out, 3, stream);
        }
      }
      return new ProbeResult(probeRows, buildRows, (int) counters[0], chunk.end(), last, variant, counters[1],
          counters[2]);
    } catch (RuntimeException e) {
      probeRows.close();
      if (buildRows != null) buildRows.close();
      throw e;
    }
  }

  /** A chunk's end position and an upper bound of its pairs (its candidates). */
  private record Chunk(ProbePosition end, long candidates) {}

  /** The farthest end from {@code from} whose candidates fit {@code capacity}. */
  private Chunk plan(HashTable table, ProbeBatch batch, ProbePosition from, int capacity, DeviceStream stream) {
    int rows = batch.rowCount();
    if (table.isUnique()) {
      int end = (int) Math.min(rows, (long) from.row() + capacity);
      return new Chunk(new ProbePosition(end, 0), end - from.row());
    }
    long[] groups = batch.groupCandidates(table);
    long bound = (rows - (long) from.row()) * table.maxBucketLength();
    if (groups == null && bound <= capacity) return new Chunk(new ProbePosition(rows, 0), bound);
    if (groups == null) {
      groups = counts(table, batch, 0, rows, COUNT_GROUP, stream);
      batch.setGroupCandidates(table, groups);
    }
    long budget = capacity;
    int g = from.row() / COUNT_GROUP;
    Walk first = walk(table, batch, from.row(), from.offset(), groupEnd(g, rows), budget, stream);
    if (first.stop() != null) return new Chunk(first.stop(), capacity);
    budget -= first.used();
    for (g++; g < groups.length && groups[g] <= budget; g++) budget -= groups[g];
    if (g == groups.length) return new Chunk(new ProbePosition(rows, 0), capacity - budget);
    // group g holds more candidates than are left: the chunk ends inside it
    return new Chunk(walk(table, batch, g * COUNT_GROUP, 0, groupEnd(g, rows), budget, stream).stop(), capacity);
  }

  private static int groupEnd(int group, int rows) {
    return (int) Math.min(rows, (group + 1L) * COUNT_GROUP);
  }

  /** Where a walk over rows stopped for want of budget (null when they all fit), and the budget it used. */
  private record Walk(ProbePosition stop, long used) {}

  /** Rows [row, end), the first from candidate {@code offset}, taken while their candidates fit {@code budget}. */
  private Walk walk(HashTable table, ProbeBatch batch, int row, long offset, int end, long budget,
      DeviceStream stream) {
    long[] perRow = counts(table, batch, row, end, 1, stream);
    long used = 0;
    for (int i = 0; i < perRow.length; i++) {
      long skip = i == 0 ? offset : 0;
      long left = budget - used;
      if (perRow[i] - skip > left) return new Walk(new ProbePosition(row + i, skip + left), budget);
      used += perRow[i] - skip;
    }
    return new Walk(null, used);
  }

  /** Candidates per {@code group} rows of [from, to). */
  private long[] counts(HashTable table, ProbeBatch batch, int from, int to, int group, DeviceStream stream) {
    int n = (int) ((to - (long) from + group - 1) / group);
    if (n == 0) return new long[0];
    try (DeviceBuffer counts = backend.allocate(8L * n, stream)) {
      backend.fill(counts, 0, 8L * n, (byte) 0, stream);
      kernels.candidateCounts(table, batch, from, to, group, counts, stream);
      return DeviceReadback.longs(backend, counts, n, stream);
    }
  }

  @Override
  public void markRows(DeviceBuffer bitmap, DeviceBuffer rowIds, int count, DeviceStream stream) {
    rowIds.checkRange(0, 4L * count);
    if (count > 0) kernels.markRows(bitmap, rowIds, count, stream);
  }

  // ---- Gather ----

  @Override
  public DeviceBatch gather(DeviceBatch batch, DeviceBuffer rowIds, int count, DeviceStream stream) {
    rowIds.checkRange(0, 4L * count);
    return kernels.gather(batch, rowIds, count, stream);
  }

  // ---- Read-back ----
}
