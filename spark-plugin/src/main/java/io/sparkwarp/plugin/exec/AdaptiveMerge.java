package io.sparkwarp.plugin.exec;

import java.io.Serializable;

/**
 * {@code spark.warp.join.algorithm=auto} for a shuffled join whose keys are fixed-width (so the device sort packs
 * them into one 64-bit word, its fast path): each partition gathers its build side, then reads its stream side
 * until that ends or passes {@code maxStreamBytes}. A stream side that ended within the bound and holds at most
 * {@link #MAX_STREAM_PER_BUILD_ROW} rows per build row is merged with the build side where the build keys repeat;
 * otherwise the hash join builds its table and streams. Whether the keys repeat is what the unique-key table's build
 * finds (early, where they do); where they do not, that table is the hash join's. Decided per partition at run time
 * because only then are the sides' sizes and keys known.
 *
 * <p>The model (docs/PERFORMANCE.md, "Merge join against hash join", H200, 10^8 rows a side): the merge join costs
 * about one sort of both sides' keys, and every matched pair costs it less than the hash join. A unique-key table
 * builds at 0.1 ns a row, so with unique build keys the hash join wins at every ratio measured (the merge join takes
 * 1.3 times its time at 1 stream row a build row, 1.8 times at 16); a multi-match table (0.29 ns a row) and its
 * expansion lose to the merge join by half where the sides are comparable (2 to 32 matches a row).
 */
public record AdaptiveMerge(long maxStreamBytes) implements Serializable {
  /** Stream rows per build row up to which merging beats hashing (the measured crossover). */
  static final long MAX_STREAM_PER_BUILD_ROW = 4;

  /** Whether a partition whose sides hold these rows (the stream side whole) would rather be merged. */
  boolean prefersMerge(long buildRows, long streamRows) {
    return buildRows > 0 && streamRows <= MAX_STREAM_PER_BUILD_ROW * buildRows;
  }
}
