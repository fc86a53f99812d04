package io.sparkwarp.plugin.config;

/** How a shuffled equi-join runs on the GPU ({@code spark.warp.join.algorithm}). */
public enum JoinAlgorithm {
  /**
   * Per partition: the merge join where the keys are fixed-width and the stream side fits in device memory and is
   * at most 4 times the build side, the hash join otherwise (docs/PERFORMANCE.md, "Merge join against hash join").
   */
  AUTO,
  /** A hash join of each partition, building one side. */
  HASH,
  /** A merge-path sort-merge join of each partition. */
  MERGEPATH
}
