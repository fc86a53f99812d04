package io.sparkwarp.plugin.exec;

import java.io.Serializable;
import org.apache.spark.sql.execution.metric.SQLMetric;

/** The SQL metrics of a GPU operator that turns input batches into output batches: rows in and out, batches, time. */
record OperatorMetrics(SQLMetric inputRows, SQLMetric outputRows, SQLMetric outputBatches, SQLMetric gpuTime)
    implements Serializable {
  static OperatorMetrics of(SparkwarpExec node) {
    return new OperatorMetrics(node.metric(GpuMetrics.INPUT_ROWS), node.metric(GpuMetrics.OUTPUT_ROWS),
        node.metric(GpuMetrics.OUTPUT_BATCHES), node.metric(GpuMetrics.GPU_TIME));
  }

  /** Counts one output batch of {@code rows} rows. */
  void produced(int rows) {
    outputRows.add(rows);
    outputBatches.add(1);
  }
}
