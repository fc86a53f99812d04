package io.sparkwarp.examples;

import io.sparkwarp.examples.DemoQueries.DemoQuery;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.metric.SQLMetric;
import scala.jdk.javaapi.CollectionConverters;

/**
 * One query run with the plugin off and then on ({@code spark.warp.enabled}, a runtime setting, so one session
 * does both), timed per run and compared. Demo queries have a deterministic row order, so the answers compare in
 * order with {@link Row#equals}.
 *
 * @param cpuMillis wall time of each timed CPU run
 * @param gpuMillis wall time of each timed GPU run, paired with the CPU run of the same index
 * @param gpuPlan the executed plan of the last GPU run (the final plan when adaptive execution re-planned)
 * @param gpuOperators the plugin's operators in that plan, by simple class name, each once, in plan order
 * @param gpuOperatorMillis per plugin operator (by simple class name, in plan order) the task time its timing metrics
 *     counted in the last GPU run, summed over its nodes and tasks: GPU time, scan time or PCIe transfer time
 * @param gpuTimingMillis every timing metric of the plugin's operators in the last GPU run ("operator.metric", ms
 *     summed over nodes and tasks), parts such as the scan's wait for reads included: what a slow run waited for
 * @param gpuSizeBytes every size metric of the plugin's operators in the last GPU run ("operator.metric", bytes
 *     summed over nodes and tasks): the bytes over PCIe ("transferBytes": the scans' compressed uploads, every
 *     upload and download) and the shuffles' data size as Spark's rows
 * @param matched whether every GPU answer, warm-ups included, equalled the CPU answer of its repetition
 * @param rows rows in the answer
 */
public record CpuGpuRun(DemoQuery query, List<Long> cpuMillis, List<Long> gpuMillis, String gpuPlan,
    List<String> gpuOperators, Map<String, Double> gpuOperatorMillis, Map<String, Double> gpuTimingMillis,
    Map<String, Long> gpuSizeBytes, boolean matched, int rows) {
  /** The plugin's timing metrics (nanoseconds): what an operator's own work took, without its input's. */
  static final List<String> TIMING_METRICS = List.of("gpuTime", "transferTime");

  /** The session-level switch of the plan rewrite. */
  public static final String ENABLED = "spark.warp.enabled";

  /** Runs {@code query} {@code repetitions} times on each side, CPU first in each repetition. */
  public static CpuGpuRun run(SparkSession spark, DemoQuery query, int repetitions) {
    return run(spark, query, 0, repetitions);
  }

  /**
   * Runs {@code query} {@code warmUps} times on each side untimed (JIT, file caches, broadcast and kernel set-up),
   * then {@code repetitions} times timed, CPU first in each round.
   */
  public static CpuGpuRun run(SparkSession spark, DemoQuery query, int warmUps, int repetitions) {
    if (repetitions < 1) throw new IllegalArgumentException("repetitions must be at least 1, got " + repetitions);
    List<Long> cpuMillis = new ArrayList<>();
    List<Long> gpuMillis = new ArrayList<>();
    boolean matched = true;
    Execution gpu = null;
    for (int i = 0; i < warmUps + repetitions; i++) {
      Execution cpu = Execution.of(spark, query.sql(), false);
      gpu = Execution.of(spark, query.sql(), true);
      if (i >= warmUps) {
        cpuMillis.add(cpu.millis());
        gpuMillis.add(gpu.millis());
      }
      matched &= cpu.rows().equals(gpu.rows());
    }
    List<String> operators = PlanNodes.pluginNodes(gpu.plan()).stream().map(node -> node.getClass().getSimpleName())
        .distinct().toList();
    return new CpuGpuRun(query, cpuMillis, gpuMillis, gpu.plan().treeString(), operators, operatorMillis(gpu.plan()),
        timingMillis(gpu.plan()), sizeBytes(gpu.plan()), matched, gpu.rows().size());
  }

  /** The task time of each plugin operator in an executed plan; a node reached twice (a reused exchange) counts once. */
  static Map<String, Double> operatorMillis(SparkPlan plan) {
    Map<String, Double> millis = new LinkedHashMap<>();
    for (SparkPlan node : distinctPluginNodes(plan)) {
      Map<String, SQLMetric> metrics = CollectionConverters.asJava(node.metrics());
      long nanos = TIMING_METRICS.stream().filter(metrics::containsKey)
          .mapToLong(name -> Math.max(0, metrics.get(name).value())).sum();
      millis.merge(node.getClass().getSimpleName(), nanos / 1e6, Double::sum);
    }
    return millis;
  }

  /** Every nanosecond timing metric of the plugin's nodes, as "operator.metric" to ms. */
  static Map<String, Double> timingMillis(SparkPlan plan) {
    Map<String, Double> millis = new LinkedHashMap<>();
    for (SparkPlan node : distinctPluginNodes(plan)) {
      CollectionConverters.asJava(node.metrics()).forEach((name, metric) -> {
        if (metric.metricType().equals("nsTiming")) {
          millis.merge(node.getClass().getSimpleName() + "." + name, Math.max(0, metric.value()) / 1e6, Double::sum);
        }
      });
    }
    return millis;
  }

  /** Every size metric of the plugin's nodes, as "operator.metric" to bytes. */
  static Map<String, Long> sizeBytes(SparkPlan plan) {
    Map<String, Long> bytes = new LinkedHashMap<>();
    for (SparkPlan node : distinctPluginNodes(plan)) {
      CollectionConverters.asJava(node.metrics()).forEach((name, metric) -> {
        if (metric.metricType().equals("size")) {
          bytes.merge(node.getClass().getSimpleName() + "." + name, Math.max(0, metric.value()), Long::sum);
        }
      });
    }
    return bytes;
  }

  /** The plugin's nodes, each once: a reused exchange reaches the same nodes twice. */
  private static List<SparkPlan> distinctPluginNodes(SparkPlan plan) {
    Set<SparkPlan> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    return PlanNodes.pluginNodes(plan).stream().filter(seen::add).toList();
  }

  /** The median of the timed CPU runs, in ms. */
  public double cpuMedian() {
    return median(cpuMillis);
  }

  /** The median of the timed GPU runs, in ms. */
  public double gpuMedian() {
    return median(gpuMillis);
  }

  /** The median; the mean of the middle two for an even count. */
  static double median(List<Long> values) {
    List<Long> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2.0;
  }

  /** Runs {@code sql} once, untimed, with the plugin's rewrite on or off; its answer. */
  static List<Row> once(SparkSession spark, String sql, boolean gpu) {
    return Execution.of(spark, sql, gpu).rows();
  }

  /** One execution: its answer, wall time and executed plan. */
  private record Execution(List<Row> rows, long millis, SparkPlan plan) {
    static Execution of(SparkSession spark, String sql, boolean gpu) {
      spark.conf().set(ENABLED, Boolean.toString(gpu));
      long start = System.nanoTime();
      Dataset<Row> result = spark.sql(sql);
      List<Row> rows = result.collectAsList();
      long millis = (System.nanoTime() - start) / 1_000_000;
      return new Execution(rows, millis, result.queryExecution().executedPlan());
    }
  }
}
