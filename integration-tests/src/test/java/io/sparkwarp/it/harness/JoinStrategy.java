package io.sparkwarp.it.harness;

/**
 * The three operators Spark plans an equi-join as, each forced by its hint, and the GPU node each becomes; the
 * sort-merge join a second time under {@code spark.warp.join.algorithm=mergePath}, as the GPU merge join. Size-based
 * broadcasting is off for the shuffled ones, so that small tables and adaptive re-planning leave them shuffled.
 */
public enum JoinStrategy {
  BROADCAST("BROADCAST", "BroadcastHashJoinExec", GpuNodes.BROADCAST_HASH_JOIN, true, null),
  SHUFFLED_HASH("SHUFFLE_HASH", "ShuffledHashJoinExec", GpuNodes.SHUFFLED_HASH_JOIN, false, null),
  SORT_MERGE("MERGE", "SortMergeJoinExec", GpuNodes.SHUFFLED_HASH_JOIN, false, null),
  MERGE_PATH("MERGE", "SortMergeJoinExec", GpuNodes.SORT_MERGE_JOIN, false, "mergePath");

  public static final String JOIN_ALGORITHM = "spark.warp.join.algorithm";

  public static final String AUTO_BROADCAST_THRESHOLD = "spark.sql.autoBroadcastJoinThreshold";
  /**
   * Adaptive execution's rule that replaces a join by its answer once a side turns out empty (or, for a null-aware
   * anti join, to hold a null key), taking the join out of the plan; tests of such inputs exclude it through
   * {@value #ADAPTIVE_EXCLUDED_RULES}.
   */
  public static final String PROPAGATE_EMPTY_RELATION =
      "org.apache.spark.sql.execution.adaptive.AQEPropagateEmptyRelation";
  public static final String ADAPTIVE_EXCLUDED_RULES = "spark.sql.adaptive.optimizer.excludedRules";

  private final String hint;
  private final String sparkNode;
  private final String gpuNode;
  private final boolean autoBroadcast;
  /** The plugin's join algorithm setting, or null for the default. */
  private final String algorithm;

  JoinStrategy(String hint, String sparkNode, String gpuNode, boolean autoBroadcast, String algorithm) {
    this.hint = hint;
    this.sparkNode = sparkNode;
    this.gpuNode = gpuNode;
    this.autoBroadcast = autoBroadcast;
    this.algorithm = algorithm;
  }

  /** The hint for this operator with the relation {@code buildSide} hashed (for a merge, either side). */
  public String hint(String buildSide) {
    return "/*+ " + hint + "(" + buildSide + ") */";
  }

  /** Spark's node, as the CPU plan must hold it. */
  public String sparkNode() {
    return sparkNode;
  }

  /** The plugin's node, as the GPU plan must hold it. */
  public String gpuNode() {
    return gpuNode;
  }

  /**
   * {@code sql}, which carries this strategy's {@link #hint}, checked to plan as {@link #sparkNode} on the CPU and
   * as {@link #gpuNode} between the transitions on the GPU.
   */
  public QueryCheck check(String sql) {
    return planned(QueryCheck.sql(sql).gpuNodes(gpuNode, GpuNodes.ONTO_GPU, GpuNodes.GPU_TO_HOST));
  }

  /** {@code sql} planned with this strategy, whose join must stay on the CPU with a reason containing {@code reason}. */
  public void checkFallsBack(String sql, String reason) {
    planned(QueryCheck.sql(sql)).fallsBack(sparkNode, reason);
  }

  private QueryCheck planned(QueryCheck check) {
    check.cpuNodes(sparkNode);
    if (algorithm != null) check.conf(JOIN_ALGORITHM, algorithm);
    return autoBroadcast ? check : check.conf(AUTO_BROADCAST_THRESHOLD, "-1");
  }
}
