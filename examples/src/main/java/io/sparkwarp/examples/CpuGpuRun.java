package io.sparkwarp.examples;

import io.sparkwarp.examples.DemoQueries.DemoQuery;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * One query run with the plugin off and then on ({@code spark.warp.enabled}, a runtime setting, so one session
 * does both), timed per run and compared. Demo queries have a deterministic row order, so the answers compare in
 * order with {@link Row#equals}.
 *
 * @param cpuMillis wall time of each CPU run
 * @param gpuMillis wall time of each GPU run, paired with the CPU run of the same index
 * @param gpuPlan the executed plan of the last GPU run (the final plan when adaptive execution re-planned)
 * @param matched whether every GPU answer equalled the CPU answer of its repetition
 * @param rows rows in the answer
 */
public record CpuGpuRun(DemoQuery query, List<Long> cpuMillis, List<Long> gpuMillis, String gpuPlan, boolean matched,
    int rows) {
  /** The session-level switch of the plan rewrite. */
  public static final String ENABLED = "spark.warp.enabled";

  /** Runs {@code query} {@code repetitions} times on each side, CPU first in each repetition. */
  public static CpuGpuRun run(SparkSession spark, DemoQuery query, int repetitions) {
    List<Long> cpuMillis = new ArrayList<>();
    List<Long> gpuMillis = new ArrayList<>();
    boolean matched = true;
    Execution gpu = null;
    for (int i = 0; i < repetitions; i++) {
      Execution cpu = Execution.of(spark, query.sql(), false);
      gpu = Execution.of(spark, query.sql(), true);
      cpuMillis.add(cpu.millis());
      gpuMillis.add(gpu.millis());
      matched &= cpu.rows().equals(gpu.rows());
    }
    if (gpu == null) throw new IllegalArgumentException("repetitions must be at least 1, got " + repetitions);
    return new CpuGpuRun(query, cpuMillis, gpuMillis, gpu.plan(), matched, gpu.rows().size());
  }

  /** One execution: its answer, wall time and executed plan. */
  private record Execution(List<Row> rows, long millis, String plan) {
    static Execution of(SparkSession spark, String sql, boolean gpu) {
      spark.conf().set(ENABLED, Boolean.toString(gpu));
      long start = System.nanoTime();
      Dataset<Row> result = spark.sql(sql);
      List<Row> rows = result.collectAsList();
      long millis = (System.nanoTime() - start) / 1_000_000;
      return new Execution(rows, millis, result.queryExecution().executedPlan().treeString());
    }
  }
}
