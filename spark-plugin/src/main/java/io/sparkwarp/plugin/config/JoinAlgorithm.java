package io.sparkwarp.plugin.config;

/** How a shuffled equi-join runs on the GPU ({@code spark.warp.join.algorithm}). */
public enum JoinAlgorithm {
  /**
   * Per partition: the hash join, or the merge join where the build side's keys repeat enough for it to win and the
   * stream side fits in device memory (docs/PERFORMANCE.md, "Merge join against hash join").
   */
  AUTO,
  /** A hash join of each partition, building one side. */
  HASH,
  /** A merge-path sort-merge join of each partition. */
  MERGEPATH
}
