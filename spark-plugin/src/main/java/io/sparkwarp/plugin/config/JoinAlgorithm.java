package io.sparkwarp.plugin.config;

/** How a shuffled equi-join runs on the GPU ({@code spark.warp.join.algorithm}). */
public enum JoinAlgorithm {
  /** The plugin chooses; today the hash join (docs/PERFORMANCE.md, "Merge join against hash join"). */
  AUTO,
  /** A hash join of each partition, building one side. */
  HASH,
  /** A merge-path sort-merge join of each partition. */
  MERGEPATH
}
