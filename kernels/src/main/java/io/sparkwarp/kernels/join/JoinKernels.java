package io.sparkwarp.kernels.join;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.memory.DeviceBuffer;

/**
 * The device operations of the hash join, one per kernel of {@code join.cu} (plus the scan and the gather), which
 * each backend implements: CUDA launches, or plain Java loops over host memory. Everything around them (sizes,
 * allocations, read-backs, chunk planning) is {@link SharedJoinPrimitives}, the same on both backends. Buffers are
 * sized and zeroed by the caller; tables are in the layouts of hash_table.cuh.
 */
public interface JoinKernels {
  /** hashes[i] (uint64) = the key hash of row i. */
  void hash(JoinKeys keys, DeviceBuffer hashes, DeviceStream stream);

  /**
   * Inserts the joinable rows into the open-addressing table {@code slots} (mask + 1 tagged-row slots, all bits set
   * where empty); int32 status[1] counts the joinable rows, and status[0] is set to 1 (inserts then stop early)
   * by a second row with equal keys.
   */
  void insertUnique(JoinKeys keys, DeviceBuffer slots, long mask, DeviceBuffer status, DeviceStream stream);

  /** counts[hash & mask] += 1 (int32) for every joinable row. */
  void countBuckets(JoinKeys keys, DeviceBuffer counts, long mask, DeviceStream stream);

  /** Replaces int32 values[0, n) by their exclusive prefix sums and writes the total to values[n]. */
  void exclusiveSum(DeviceBuffer values, long n, DeviceStream stream);

  /** entries[cursor[b]++] = tagged row, for every joinable row of bucket b; cursor starts as the bucket offsets. */
  void scatterBuckets(JoinKeys keys, DeviceBuffer cursor, long mask, DeviceBuffer entries, DeviceStream stream);

  /** stats[0] = the longest bucket, stats[1] = the non-empty buckets (uint64, zeroed by the caller). */
  void bucketStats(DeviceBuffer offsets, long buckets, DeviceBuffer stats, DeviceStream stream);

  /**
   * counts[(r - from) / group] += the candidates of every selected, joinable probe row r in [from, to) of the
   * multi-match {@code table} (uint64 counts).
   */
  void candidateCounts(HashTable table, ProbeBatch batch, long from, long to, int group, DeviceBuffer counts,
      DeviceStream stream);

  /** Runs one probe chunk (see {@link ProbeLaunch}). */
  void probe(ProbeLaunch launch, DeviceStream stream);

  /** Sets bit rowIds[i] (int32) of {@code bitmap} for i in [0, count). */
  void markRows(DeviceBuffer bitmap, DeviceBuffer rowIds, int count, DeviceStream stream);

  /** Rows {@code rows[0, count)} of {@code batch} as a new batch; a row id of -1 gives a null row. */
  DeviceBatch gather(DeviceBatch batch, DeviceBuffer rows, int count, DeviceStream stream);

  /**
   * One probe chunk: the candidates from ({@code rowBegin}, {@code offsetBegin}) up to, not including, ({@code
   * rowEnd}, {@code offsetEnd}); pairs go to {@code probeRows}/{@code buildRows} through the uint64 counters
   * [pairs written, active lanes, warp iterations], zeroed by the caller; matched rows are marked in the batch's
   * bitmap and in {@code buildMatches} where those exist.
   */
  record ProbeLaunch(HashTable table, ProbeBatch batch, ProbeVariant variant, int rowBegin, long offsetBegin,
      int rowEnd, long offsetEnd, DeviceBuffer buildMatches, DeviceBuffer probeRows, DeviceBuffer buildRows,
      DeviceBuffer counters) {}
}
