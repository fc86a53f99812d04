package io.sparkwarp.it.harness;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.sparkwarp.examples.PlanNodes;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.spark.SparkThrowable;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import scala.Option;

/**
 * One query run with the plugin's rewrite off ({@value #ENABLED}=false: the CPU answer) and on (the GPU answer) in
 * the shared session, in each adaptive execution mode asked for (both by default), then asserted on. Built
 * fluently and ended by one of {@link #matchesCpu}, {@link #fallsBack} or {@link #failsLikeCpu}:
 *
 * <pre>{@code
 * QueryCheck.sql("SELECT ...").conf("spark.sql.ansi.enabled", "true").gpuNodes("GpuFilterExec").matchesCpu();
 * }</pre>
 *
 * <p>Every check asserts that the CPU run's plan holds no plugin node, and every node named by {@link #cpuNodes}.
 * Answers compare by {@link Answers}' rules.
 */
public final class QueryCheck {
  public static final String ENABLED = "spark.warp.enabled";
  public static final String EXPLAIN = "spark.warp.explain";
  public static final String ADAPTIVE = "spark.sql.adaptive.enabled";

  /** The adaptive execution modes a check runs in. */
  public enum Adaptive {
    BOTH(true, false), ON(true), OFF(false);

    private final boolean[] modes;

    Adaptive(boolean... modes) {
      this.modes = modes;
    }
  }

  private final String description;
  private final Function<SparkSession, Dataset<Row>> query;
  private final Map<String, String> conf = new LinkedHashMap<>();
  private final List<String> gpuNodes = new ArrayList<>();
  private final List<String> cpuNodes = new ArrayList<>();
  private final List<Consumer<SparkPlan>> gpuPlanChecks = new ArrayList<>();
  private Adaptive adaptive = Adaptive.BOTH;
  private double floatSumTolerance;

  private QueryCheck(String description, Function<SparkSession, Dataset<Row>> query) {
    this.description = description;
    this.query = query;
  }

  public static QueryCheck sql(String sql) {
    return new QueryCheck(sql.strip().replaceAll("\\s+", " "), spark -> spark.sql(sql));
  }

  /** A query built with the Dataset API; called once per run, so each run plans afresh. */
  public static QueryCheck of(String description, Function<SparkSession, Dataset<Row>> query) {
    return new QueryCheck(description, query);
  }

  /** A session setting for both runs (restored afterwards). */
  public QueryCheck conf(String key, String value) {
    conf.put(key, value);
    return this;
  }

  public QueryCheck adaptive(Adaptive modes) {
    adaptive = modes;
    return this;
  }

  /** Allows finite float results this relative error; only for sums of floats, whose addition order differs. */
  public QueryCheck floatSumTolerance(double relative) {
    if (!(relative > 0 && relative < 1)) throw new IllegalArgumentException("tolerance must be in (0, 1): " + relative);
    floatSumTolerance = relative;
    return this;
  }

  /** Plan nodes (simple class names) the GPU run's executed plan must contain; "A|B" is satisfied by either. */
  public QueryCheck gpuNodes(String... simpleClassNames) {
    gpuNodes.addAll(List.of(simpleClassNames));
    return this;
  }

  /**
   * Spark's plan nodes (simple class names) the CPU run's executed plan must contain: that the query plans as the
   * operator it means to test (SortMergeJoinExec rather than BroadcastHashJoinExec, say).
   */
  public QueryCheck cpuNodes(String... simpleClassNames) {
    cpuNodes.addAll(List.of(simpleClassNames));
    return this;
  }

  /**
   * An assertion over the GPU run's executed plan once its rows are collected, so its nodes' metrics hold the run's
   * figures (that a sort spilled, say); made in every adaptive mode {@link #matchesCpu} runs.
   */
  public QueryCheck gpuPlan(Consumer<SparkPlan> check) {
    gpuPlanChecks.add(check);
    return this;
  }

  /** The GPU answer equals the CPU answer and the GPU plan holds every node named by {@link #gpuNodes}. */
  public void matchesCpu() {
    requireGpuNodes();
    for (boolean aqe : adaptive.modes) {
      Runs runs = run(aqe, false);
      runs.requireNoError();
      runs.assertCpuPlanUntouched();
      runs.assertCpuNodes();
      runs.assertSameAnswer();
      runs.assertGpuNodes();
      gpuPlanChecks.forEach(check -> check.accept(runs.gpu.plan()));
    }
  }

  /**
   * The answers match, yet {@code cpuNode} (a Spark class simple name such as FilterExec) stays in the GPU run's
   * plan, and the plugin's explain output gives a reason for it containing {@code reason} (ignoring case).
   */
  public void fallsBack(String cpuNode, String reason) {
    for (boolean aqe : adaptive.modes) {
      Runs runs = run(aqe, true);
      runs.requireNoError();
      runs.assertCpuPlanUntouched();
      runs.assertCpuNodes();
      runs.assertSameAnswer();
      runs.assertGpuNodes();
      List<String> nodes = PlanNodes.names(runs.gpu.plan());
      assertTrue(nodes.contains(cpuNode), runs.label + ": " + cpuNode + " should stay on the CPU, but the GPU plan "
          + "has " + nodes + "\n" + runs.gpu.plan().treeString());
      List<String> reasons = runs.gpu.explain.reasonsFor(cpuNode);
      assertTrue(reasons.stream().anyMatch(r -> r.toLowerCase(Locale.ROOT).contains(reason.toLowerCase(Locale.ROOT))),
          runs.label + ": no reason containing '" + reason + "' for " + cpuNode + "; reasons " + reasons
              + "; the plugin logged:\n" + String.join("\n", runs.gpu.explain.lines()));
    }
  }

  /**
   * Both runs fail with the same exception class and Spark error condition, {@code condition} (for example
   * DIVIDE_BY_ZERO), and the GPU plan holds every node named by {@link #gpuNodes}.
   */
  public void failsLikeCpu(String condition) {
    requireGpuNodes();
    for (boolean aqe : adaptive.modes) {
      Runs runs = run(aqe, false);
      Throwable cpu = sparkCause(runs.cpu, runs.label);
      Throwable gpu = sparkCause(runs.gpu, runs.label);
      expectSame(condition, ((SparkThrowable) cpu).getCondition(), runs.label + ": the CPU error's condition", cpu);
      expectSame(cpu.getClass(), gpu.getClass(), runs.label + ": the GPU error's class", gpu);
      expectSame(condition, ((SparkThrowable) gpu).getCondition(), runs.label + ": the GPU error's condition", gpu);
      runs.assertCpuPlanUntouched();
      runs.assertCpuNodes();
      runs.assertGpuNodes();
    }
  }

  private void requireGpuNodes() {
    if (gpuNodes.isEmpty()) throw new IllegalStateException("name the GPU nodes the query must use: gpuNodes(...)");
  }

  /** Like assertEquals, with the error in question as the failure's cause, its stack trace intact. */
  private static void expectSame(Object expected, Object actual, String what, Throwable error) {
    if (!expected.equals(actual)) fail(what + ": expected " + expected + " but was " + actual, error);
  }

  /** The innermost SparkThrowable of a failed run: the error Spark raised, under any wrapping job failure. */
  private static Throwable sparkCause(Execution run, String label) {
    assertNotNull(run.error, label + ": the " + run.side + " run should fail but returned " + run.rows);
    Throwable found = null;
    for (Throwable t = run.error; t != null; t = t.getCause()) {
      if (t instanceof SparkThrowable) found = t;
    }
    if (found == null) fail(label + ": the " + run.side + " run failed without a Spark error condition", run.error);
    return found;
  }

  private Runs run(boolean aqe, boolean explainFallbacks) {
    String label = description + " [adaptive execution " + (aqe ? "on" : "off") + "]";
    Map<String, String> settings = new LinkedHashMap<>(conf);
    settings.put(ADAPTIVE, Boolean.toString(aqe));
    settings.put(ENABLED, "false");
    Execution cpu = withConf(settings, () -> execute("CPU", false));
    settings.put(ENABLED, "true");
    if (explainFallbacks) settings.put(EXPLAIN, "NOT_ON_GPU");
    Execution gpu = withConf(settings, () -> execute("GPU", explainFallbacks));
    return new Runs(label, cpu, gpu);
  }

  private Execution execute(String side, boolean captureExplain) {
    SparkSession spark = SharedSpark.get();
    try (ExplainLog explain = captureExplain ? ExplainLog.capture() : null) {
      Dataset<Row> dataset = null;
      try {
        dataset = query.apply(spark);
        return new Execution(side, dataset, dataset.collectAsList(), null, explain);
      } catch (Exception e) {
        return new Execution(side, dataset, null, e, explain);
      }
    }
  }

  /** Runs {@code body} with {@code settings}, then puts back what the session had. */
  static <T> T withConf(Map<String, String> settings, Supplier<T> body) {
    SparkSession spark = SharedSpark.get();
    Map<String, Option<String>> before = new LinkedHashMap<>();
    settings.forEach((key, value) -> {
      before.put(key, spark.conf().getOption(key));
      spark.conf().set(key, value);
    });
    try {
      return body.get();
    } finally {
      before.forEach((key, value) -> {
        if (value.isDefined()) {
          spark.conf().set(key, value.get());
        } else {
          spark.conf().unset(key);
        }
      });
    }
  }

  /** One side's run: its rows or its error, the executed Dataset (null when planning failed), what was logged. */
  private record Execution(String side, Dataset<Row> dataset, List<Row> rows, Exception error, ExplainLog explain) {
    SparkPlan plan() {
      return dataset.queryExecution().executedPlan();
    }
  }

  /** The CPU and GPU runs of one adaptive execution mode, with the assertions over them. */
  private final class Runs {
    final String label;
    final Execution cpu;
    final Execution gpu;

    Runs(String label, Execution cpu, Execution gpu) {
      this.label = label;
      this.cpu = cpu;
      this.gpu = gpu;
    }

    void requireNoError() {
      if (cpu.error != null) fail(label + ": the CPU run failed; the query itself is wrong", cpu.error);
      if (gpu.error != null) fail(label + ": the GPU run failed where the CPU run succeeded", gpu.error);
    }

    void assertCpuPlanUntouched() {
      if (cpu.dataset == null) return;
      List<SparkPlan> plugin = PlanNodes.pluginNodes(cpu.plan());
      assertTrue(plugin.isEmpty(), label + ": with " + ENABLED + "=false the plan still has "
          + plugin.stream().map(node -> node.getClass().getSimpleName()).toList() + "\n" + cpu.plan().treeString());
    }

    void assertCpuNodes() {
      if (cpuNodes.isEmpty()) return;
      assertNotNull(cpu.dataset, label + ": the CPU run failed before it had a plan");
      List<String> names = PlanNodes.names(cpu.plan());
      List<String> missing = cpuNodes.stream().filter(node -> !names.contains(node)).toList();
      assertTrue(missing.isEmpty(), label + ": the CPU plan lacks " + missing + "; it has " + names + "\n"
          + cpu.plan().treeString());
    }

    void assertSameAnswer() {
      boolean ordered = Answers.isOrdered(cpu.dataset.queryExecution().analyzed());
      Answers.difference(cpu.rows, gpu.rows, ordered, floatSumTolerance)
          .ifPresent(difference -> fail(label + ": " + difference + "\nGPU plan:\n" + gpu.plan().treeString()));
    }

    void assertGpuNodes() {
      assertNotNull(gpu.dataset, label + ": the GPU run failed before it had a plan");
      List<String> names = PlanNodes.names(gpu.plan());
      // "A|B": either node will do
      List<String> missing = gpuNodes.stream()
          .filter(node -> Arrays.stream(node.split("\\|")).noneMatch(names::contains)).toList();
      assertTrue(missing.isEmpty(), label + ": the GPU plan lacks " + missing + "; it has " + names + "\n"
          + gpu.plan().treeString());
      // a plugin node reading what neither its children nor it produce is a planning bug ("!" in explain)
      for (SparkPlan node : PlanNodes.pluginNodes(gpu.plan())) {
        assertTrue(node.missingInput().isEmpty(), label + ": " + node.nodeName() + " reads missing input "
            + node.missingInput() + "\n" + gpu.plan().treeString());
      }
    }
  }
}
