package io.sparkwarp.plugin.exec;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sparkwarp.join.ProbeMetrics;
import io.sparkwarp.kernels.join.ProbeVariant;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.junit.jupiter.api.Test;

/** A join's lane utilisation reaches the UI as Spark's average metrics expect their values. */
class JoinMetricsTest {
  private static SQLMetric sum() {
    return new SQLMetric("sum", 0);
  }

  @Test
  void laneUtilisationIsSetAsAnAverageMetricsPercentage() {
    SQLMetric lanes = new SQLMetric("average", 0);
    JoinMetrics metrics = new JoinMetrics(sum(), sum(), sum(), sum(), sum(), sum(), sum(), sum(), sum(), lanes, sum());
    metrics.finished(new ProbeMetrics(100, 1, 10, ProbeVariant.NAIVE, 20, 1));  // 20 of 32 lanes busy

    SQLMetric expected = new SQLMetric("average", 0);
    expected.set(62.5);  // Spark's own way to set an average, whose decimals it keeps scaled in the long
    assertEquals(expected.value(), lanes.value());
  }

  @Test
  void aJoinWithoutALaneMetricFinishesToo() {
    // the host backend's joins have no lane metric (GpuMetrics.join)
    JoinMetrics metrics = new JoinMetrics(sum(), sum(), sum(), sum(), sum(), sum(), sum(), sum(), sum(), null, sum());
    assertDoesNotThrow(() -> metrics.finished(new ProbeMetrics(100, 1, 10, ProbeVariant.NAIVE, 20, 1)));
  }
}
