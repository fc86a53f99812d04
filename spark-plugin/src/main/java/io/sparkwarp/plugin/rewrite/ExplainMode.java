package io.sparkwarp.plugin.rewrite;

/** What {@code spark.warp.explain} logs for each query the rewrite sees. */
public enum ExplainMode {
  /** nothing */
  NONE,
  /** every node kept on the CPU, with the reasons */
  NOT_ON_GPU,
  /** the whole tree: '*' for nodes on the GPU, '!' for nodes kept on the CPU with the reasons */
  ALL
}
