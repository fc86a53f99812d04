package io.sparkwarp.plugin.exec;

import io.sparkwarp.join.ProbeMetrics;
import java.io.Serializable;
import org.apache.spark.sql.execution.metric.SQLMetric;

/**
 * A GPU join's SQL metrics, updated by its partitions; laneUtilisation is null where no lanes are measured,
 * mergePartitions and spreadPartitions for a broadcast join (whose partitions are never merged nor spread).
 */
record JoinMetrics(SQLMetric rows, SQLMetric batches, SQLMetric gpuTime, SQLMetric matches, SQLMetric naive,
    SQLMetric pushDown, SQLMetric refill, SQLMetric mergePartitions, SQLMetric spreadPartitions,
    SQLMetric laneUtilisation, SQLMetric buildUploadBytes) implements Serializable {
  static JoinMetrics of(SparkwarpExec node) {
    return new JoinMetrics(node.metric(GpuMetrics.OUTPUT_ROWS), node.metric(GpuMetrics.OUTPUT_BATCHES),
        node.metric(GpuMetrics.GPU_TIME), node.metric(GpuMetrics.MATCHES), node.metric(GpuMetrics.NAIVE_PROBES),
        node.metric(GpuMetrics.PUSH_DOWN_PROBES), node.metric(GpuMetrics.REFILL_PROBES),
        node.metricIfPresent(GpuMetrics.MERGE_PARTITIONS), node.metricIfPresent(GpuMetrics.SPREAD_PARTITIONS),
        node.metricIfPresent(GpuMetrics.LANE_UTILISATION), node.metric(GpuMetrics.TRANSFER_BYTES));
  }

  /** Adds one probed stream batch. */
  void probed(ProbeMetrics before, ProbeMetrics after) {
    matches.add(after.matches() - before.matches());
    if (after.variant() == null || after.chunks() == before.chunks()) return;
    switch (after.variant()) {
      case NAIVE -> naive.add(1);
      case PUSH_DOWN -> pushDown.add(1);
      case REFILL -> refill.add(1);
    }
  }

  /** The task's average lane utilisation, where the backend measures lanes. */
  void finished(ProbeMetrics all) {
    double u = all.laneUtilisation();
    // set(double): Spark keeps an average metric's decimals scaled inside the long; set(long) would show a tenth
    if (laneUtilisation != null && !Double.isNaN(u)) laneUtilisation.set(100 * u);
  }
}
