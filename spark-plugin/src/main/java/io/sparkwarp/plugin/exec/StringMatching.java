package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.strings.MatchResult;
import io.sparkwarp.strings.MatchOptions;
import java.io.Serializable;
import java.util.List;
import org.apache.spark.sql.execution.metric.SQLMetric;

/**
 * How an operator runs its string predicates (the session's {@link MatchOptions}) and where it reports them: the
 * layout each predicate read, per batch, and the task's average lane utilisation. One copy per task.
 */
final class StringMatching implements Serializable {
  private final MatchOptions options;
  private final SQLMetric plain;
  private final SQLMetric pivoted;
  private final SQLMetric selfPivoted;
  /** Null where the backend has no lanes to measure. */
  private final SQLMetric laneUtilisation;
  private long activeLanes;
  private long warpIterations;

  private StringMatching(MatchOptions options, SQLMetric plain, SQLMetric pivoted, SQLMetric selfPivoted,
      SQLMetric laneUtilisation) {
    this.options = options;
    this.plain = plain;
    this.pivoted = pivoted;
    this.selfPivoted = selfPivoted;
    this.laneUtilisation = laneUtilisation;
  }

  /** For a node with {@link GpuMetrics#expression} metrics. */
  static StringMatching of(SparkwarpExec node, MatchOptions options) {
    return new StringMatching(options, node.metric(GpuMetrics.PLAIN_STRING_MATCHES),
        node.metric(GpuMetrics.PIVOTED_STRING_MATCHES), node.metric(GpuMetrics.SELF_PIVOTED_STRING_MATCHES),
        node.metricIfPresent(GpuMetrics.STRING_LANE_UTILISATION));
  }

  MatchOptions options() {
    return options;
  }

  /** Adds one batch's predicates. */
  void record(List<MatchResult> results) {
    for (MatchResult r : results) {
      switch (r.layout()) {
        case PLAIN -> plain.add(1);
        case PIVOTED -> pivoted.add(1);
        case SELF_PIVOTED -> selfPivoted.add(1);
      }
      activeLanes += r.activeLanes();
      warpIterations += r.warpIterations();
    }
    // an average metric takes one value per task: the running average so far
    // set(double): Spark keeps an average metric's decimals scaled inside the long; set(long) would show a tenth
    if (laneUtilisation != null && warpIterations > 0) {
      laneUtilisation.set(100.0 * activeLanes / (32.0 * warpIterations));
    }
  }
}
