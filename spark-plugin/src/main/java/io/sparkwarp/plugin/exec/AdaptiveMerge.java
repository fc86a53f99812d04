package io.sparkwarp.plugin.exec;

import java.io.Serializable;

/**
 * {@code spark.warp.join.algorithm=auto} for a shuffled join whose keys are fixed-width (so the device sort packs
 * them into one 64-bit word, its fast path): each partition gathers its build side, then reads its stream side
 * until that ends or passes {@code maxStreamBytes}. A stream side that ended within the bound and holds at most
 * {@link #MAX_STREAM_PER_BUILD_ROW} rows per build row is merged with the build side; otherwise the hash join builds
 * its table and streams. Decided per partition at run time because only then are the sides' sizes known.
 *
 * <p>The model (docs/PERFORMANCE.md, "Merge join against hash join", H200, 10^8 rows): the merge join costs about one
 * sort of both sides' keys, the hash join a table build per build row (about 3 times a sorted row) plus a probe per
 * stream row (about as much as a sorted row), and every matched pair costs the merge join less. So the merge join
 * wins unless the stream side is several times the build side: measured equal at 4 stream rows per unique build
 * key, and 1.6 times the hash join's time at 16.
 */
public record AdaptiveMerge(long maxStreamBytes) implements Serializable {
  /** Stream rows per build row up to which merging beats hashing (the measured crossover). */
  static final long MAX_STREAM_PER_BUILD_ROW = 4;

  /** Whether a partition whose sides hold these rows (the stream side whole) would rather be merged. */
  boolean prefersMerge(long buildRows, long streamRows) {
    return buildRows > 0 && streamRows <= MAX_STREAM_PER_BUILD_ROW * buildRows;
  }
}
