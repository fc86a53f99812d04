package io.sparkwarp.plugin.exec;

import java.io.Serializable;
import org.apache.spark.sql.execution.metric.SQLMetric;

/** Which operator a {@link DeviceRetry} works for, and its metrics: steps retried, batches split. */
record RetryMetrics(String operator, SQLMetric retries, SQLMetric splits) implements Serializable {
  static RetryMetrics of(SparkwarpExec node) {
    return new RetryMetrics(node.getClass().getSimpleName(), node.metric(GpuMetrics.RETRIES),
        node.metric(GpuMetrics.SPLIT_BATCHES));
  }
}
