package io.sparkwarp.kernels.join;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.memory.DeviceBuffer;

/**
 * The device side of hash joins: table builds, chunked probes and the payload gather. CUDA: {@code join.cu},
 * {@code scan.cu}, {@code select.cu}. Every method returns objects the caller owns and leaves its inputs open;
 * builds and probes synchronise the stream once or twice to read back statistics and counts.
 */
public interface JoinPrimitives {
  /** hashes[i] (uint64, 8 bytes per row) = the key hash of row i, the same on every backend. */
  void hash(JoinKeys keys, DeviceBuffer hashes, DeviceStream stream);

  /** A unique-key table over the joinable rows of {@code keys}, or null when two rows have equal keys. */
  HashTable buildUnique(JoinKeys keys, DeviceStream stream);

  /** A multi-match table over the joinable rows of {@code keys}, with its bucket statistics. */
  HashTable buildMulti(JoinKeys keys, DeviceStream stream);

  /**
   * Probes {@code table} with the batch's selected rows from position {@code from}, writing at most {@code
   * capacity} pairs; the result says where the next chunk starts. Probing from every returned position until
   * {@link ProbeResult#isLast()} yields every match exactly once. Matched rows are marked in the batch's bitmap, if it
   * tracks matches, and in {@code buildMatches}.
   *
   * @param buildMatches Arrow-order bitmap of the table's build rows in which to set the matched ones, or null
   *
   * @throws IllegalArgumentException for push-down on a unique table (it has nothing to expand), for keys that do
   *     not compare with the table's, or a capacity below 1
   */
  ProbeResult probe(HashTable table, ProbeBatch batch, ProbePosition from, int capacity, ProbeVariant variant,
      DeviceBuffer buildMatches, DeviceStream stream);

  /**
   * Sets bit {@code rowIds[i]} (int32) of {@code bitmap} for every i in [0, count), leaving the others: marks the
   * rows of the pairs a residual condition kept (a row may appear in several).
   */
  void markRows(DeviceBuffer bitmap, DeviceBuffer rowIds, int count, DeviceStream stream);

  /**
   * Rows {@code rowIds[0, count)} (int32) of {@code batch}, in that order, as a new batch; a row id of -1 gives a
   * row of nulls (outer joins).
   */
  DeviceBatch gather(DeviceBatch batch, DeviceBuffer rowIds, int count, DeviceStream stream);
}
