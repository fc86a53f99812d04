package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.join.HashTable;
import io.sparkwarp.kernels.join.JoinKernels;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.kernels.join.KeyHash;
import io.sparkwarp.kernels.join.ProbeBatch;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Reference {@link JoinKernels}: the same table layouts as {@code hash_table.cuh}, filled and probed row by row in
 * order. Every variant is the same loop here (the variants differ only in how lanes share work), and no lane
 * utilisation is measured: there are no lanes.
 */
final class HostJoinKernels implements JoinKernels {
  private static final long EMPTY_SLOT = -1L;

  private final Backend backend;

  HostJoinKernels(Backend backend) {
    this.backend = backend;
  }

  private static long taggedRow(long hash, long row) {
    return (hash & 0xFFFFFFFF00000000L) | row;
  }

  private static boolean tagMatches(long entry, long hash) {
    return (entry >>> 32) == (hash >>> 32);
  }

  private static boolean bit(DeviceBuffer bitmap, long i) {
    return bitmap == null || HostBatchPrimitives.getBit(bitmap.address(), i);
  }

  @Override
  public void hash(JoinKeys keys, DeviceBuffer hashes, DeviceStream stream) {
    for (int r = 0; r < keys.rowCount(); r++) MemoryUtil.putLong(hashes.address() + 8L * r, KeyHash.hash(keys, r));
  }

  @Override
  public void insertUnique(JoinKeys keys, DeviceBuffer slots, long mask, DeviceBuffer status, DeviceStream stream) {
    slots.checkRange(0, 8 * (mask + 1));
    int joinable = 0;
    for (int r = 0; r < keys.rowCount(); r++) {
      if (!KeyHash.joinable(keys, r)) continue;
      joinable++;
      long hash = KeyHash.hash(keys, r);
      for (long slot = hash & mask;; slot = (slot + 1) & mask) {
        long at = slots.address() + 8 * slot;
        long old = MemoryUtil.getLong(at);
        if (old == EMPTY_SLOT) {
          MemoryUtil.putLong(at, taggedRow(hash, r));
          break;
        }
        if (tagMatches(old, hash) && KeyHash.equal(keys, (int) old, keys, r)) {
          MemoryUtil.putInt(status.address(), 1);
          return;
        }
      }
    }
    MemoryUtil.putInt(status.address() + 4, joinable);
  }

  @Override
  public void countBuckets(JoinKeys keys, DeviceBuffer counts, long mask, DeviceStream stream) {
    counts.checkRange(0, 4 * (mask + 1));
    for (int r = 0; r < keys.rowCount(); r++) {
      if (!KeyHash.joinable(keys, r)) continue;
      long at = counts.address() + 4 * (KeyHash.hash(keys, r) & mask);
      MemoryUtil.putInt(at, MemoryUtil.getInt(at) + 1);
    }
  }

  @Override
  public void exclusiveSum(DeviceBuffer values, long n, DeviceStream stream) {
    values.checkRange(0, 4 * (n + 1));
    int sum = 0;
    for (long i = 0; i < n; i++) {
      int v = MemoryUtil.getInt(values.address() + 4 * i);
      MemoryUtil.putInt(values.address() + 4 * i, sum);
      sum += v;
    }
    MemoryUtil.putInt(values.address() + 4 * n, sum);
  }

  @Override
  public void scatterBuckets(JoinKeys keys, DeviceBuffer cursor, long mask, DeviceBuffer entries,
      DeviceStream stream) {
    cursor.checkRange(0, 4 * (mask + 1));
    for (int r = 0; r < keys.rowCount(); r++) {
      if (!KeyHash.joinable(keys, r)) continue;
      long hash = KeyHash.hash(keys, r);
      long at = cursor.address() + 4 * (hash & mask);
      int pos = MemoryUtil.getInt(at);
      MemoryUtil.putInt(at, pos + 1);
      entries.checkRange(8L * pos, 8);
      MemoryUtil.putLong(entries.address() + 8L * pos, taggedRow(hash, r));
    }
  }

  @Override
  public void bucketStats(DeviceBuffer offsets, long buckets, DeviceBuffer stats, DeviceStream stream) {
    long longest = 0;
    long nonEmpty = 0;
    for (long b = 0; b < buckets; b++) {
      long length = MemoryUtil.getInt(offsets.address() + 4 * b + 4) - MemoryUtil.getInt(offsets.address() + 4 * b);
      longest = Math.max(longest, length);
      if (length > 0) nonEmpty++;
    }
    MemoryUtil.putLong(stats.address(), longest);
    MemoryUtil.putLong(stats.address() + 8, nonEmpty);
  }

  /** The bucket entries [lo, hi) a probe row's candidates are, as indices (multi-match tables). */
  private static long bucketStart(HashTable table, long hash) {
    return MemoryUtil.getInt(table.bucketOffsets().address() + 4 * (hash & (table.bucketCount() - 1)));
  }

  private static long bucketEnd(HashTable table, long hash) {
    return MemoryUtil.getInt(table.bucketOffsets().address() + 4 * (hash & (table.bucketCount() - 1)) + 4);
  }

  private static boolean live(ProbeBatch batch, int row) {
    return bit(batch.selection(), row) && KeyHash.joinable(batch.keys(), row);
  }

  @Override
  public void candidateCounts(HashTable table, ProbeBatch batch, long from, long to, int group, DeviceBuffer counts,
      DeviceStream stream) {
    for (long r = from; r < to; r++) {
      if (!live(batch, (int) r)) continue;
      long hash = KeyHash.hash(batch.keys(), r);
      long at = counts.address() + 8 * ((r - from) / group);
      MemoryUtil.putLong(at, MemoryUtil.getLong(at) + bucketEnd(table, hash) - bucketStart(table, hash));
    }
  }

  @Override
  public void probe(ProbeLaunch p, DeviceStream stream) {
    HashTable table = p.table();
    ProbeBatch batch = p.batch();
    long mask = table.bucketCount() - 1;
    long rowStop = p.offsetEnd() > 0 ? p.rowEnd() + 1L : p.rowEnd();
    Pairs out = new Pairs(p);
    for (int row = p.rowBegin(); row < rowStop; row++) {
      if (!live(batch, row)) continue;
      long hash = KeyHash.hash(batch.keys(), row);
      if (table.isUnique()) {
        for (long slot = hash & mask;; slot = (slot + 1) & mask) {
          long entry = MemoryUtil.getLong(table.taggedRows().address() + 8 * slot);
          if (entry == EMPTY_SLOT) break;
          if (out.check(entry, hash, row)) break;
        }
      } else {
        long base = bucketStart(table, hash);
        long lo = base + (row == p.rowBegin() ? p.offsetBegin() : 0);
        long hi = row == p.rowEnd() ? base + p.offsetEnd() : bucketEnd(table, hash);
        for (long e = lo; e < hi; e++) out.check(MemoryUtil.getLong(table.taggedRows().address() + 8 * e), hash, row);
      }
    }
    MemoryUtil.putLong(p.counters().address(), out.count);
  }

  /** The pairs a probe writes, and the matched rows it marks. */
  private static final class Pairs {
    final ProbeLaunch launch;
    long count;

    Pairs(ProbeLaunch launch) {
      this.launch = launch;
    }

    /** Writes the pair when build entry {@code entry} matches probe row {@code row}. */
    boolean check(long entry, long hash, int row) {
      int buildRow = (int) entry;
      if (!tagMatches(entry, hash) || !KeyHash.equal(launch.table().buildKeys(), buildRow, launch.batch().keys(),
          row)) {
        return false;
      }
      launch.probeRows().checkRange(4 * count, 4);
      MemoryUtil.putInt(launch.probeRows().address() + 4 * count, row);
      MemoryUtil.putInt(launch.buildRows().address() + 4 * count, buildRow);
      count++;
      if (launch.batch().matches() != null) HostBatchPrimitives.setBit(launch.batch().matches().address(), row, true);
      if (launch.buildMatches() != null) HostBatchPrimitives.setBit(launch.buildMatches().address(), buildRow, true);
      return true;
    }
  }

  @Override
  public void markRows(DeviceBuffer bitmap, DeviceBuffer rowIds, int count, DeviceStream stream) {
    for (int i = 0; i < count; i++) {
      HostBatchPrimitives.setBit(bitmap.address(), MemoryUtil.getInt(rowIds.address() + 4L * i), true);
    }
  }

  @Override
  public DeviceBatch gather(DeviceBatch batch, DeviceBuffer rows, int count, DeviceStream stream) {
    int[] ids = new int[count];
    for (int i = 0; i < count; i++) ids[i] = MemoryUtil.getInt(rows.address() + 4L * i);
    return HostRowGather.gather(backend, batch, ids, stream);
  }
}
