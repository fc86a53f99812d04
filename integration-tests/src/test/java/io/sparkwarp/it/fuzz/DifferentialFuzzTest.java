package io.sparkwarp.it.fuzz;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.it.data.FuzzTables;
import io.sparkwarp.it.harness.Answers;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.JoinStrategy;
import io.sparkwarp.it.harness.QueryCheck;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.types.DoubleType;
import org.apache.spark.sql.types.FloatType;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The seeded differential fuzzer: random queries ({@link QueryGenerator}) over {@link FuzzTables}, each run with the
 * plugin's rewrite off and on in one session, adaptive execution on or off at random. A different answer, or an
 * error the plugin adds, fails with the seed, the query, both answers and both plans; so does a GPU plan that
 * downloads device batches only to upload them again. Queries that fail on the CPU
 * too (ANSI overflow, say) count as agreeing when the plugin fails as well.
 *
 * <p>Every second query runs with every join shuffled and {@code spark.warp.join.algorithm=mergePath}, so the
 * fuzzer checks the GPU merge join as well as the hash joins; {@code -Dfuzz.joinAlgorithm=mergePath} (or
 * {@code hash}) runs every query with that setting instead.
 *
 * <p>CI runs {@link #CI_SEEDS} with {@link #CI_QUERIES} each; {@code -Dfuzz.seeds=1,2,3} and
 * {@code -Dfuzz.queries=N} run others. The gpu-tagged test runs {@value #DEVICE_QUERIES} per seed by default, meant
 * for the cuda backend ({@code -Dsparkwarp.test.backend=cuda}).
 */
class DifferentialFuzzTest extends GpuTestBase {
  private static final long[] CI_SEEDS = {1, 2, 3};
  private static final int CI_QUERIES = 40;
  private static final int DEVICE_QUERIES = 250;

  @BeforeAll
  static void registerTables() {
    FuzzTables.register(spark());
  }

  @Test
  void pluginAnswersLikeSpark() {
    fuzz(CI_QUERIES);
  }

  @Test
  @Tag("gpu")
  void pluginAnswersLikeSparkOnTheDevice() {
    fuzz(DEVICE_QUERIES);
  }

  private static void fuzz(int defaultQueries) {
    long[] seeds = Optional.ofNullable(System.getProperty("fuzz.seeds")).filter(s -> !s.isBlank())
        .map(s -> Arrays.stream(s.split(",")).mapToLong(x -> Long.parseLong(x.strip())).toArray()).orElse(CI_SEEDS);
    int queries = Integer.getInteger("fuzz.queries", defaultQueries);
    String algorithm = System.getProperty("fuzz.joinAlgorithm");
    List<String> failures = new ArrayList<>();
    int ran = 0;
    int bothFailed = 0;
    int converted = 0;
    List<String> roundTrips = new ArrayList<>();
    for (long seed : seeds) {
      QueryGenerator generator = new QueryGenerator(seed);
      java.util.Random adaptive = new java.util.Random(seed);
      for (int i = 0; i < queries; i++) {
        String sql = generator.next();
        boolean aqe = adaptive.nextBoolean();
        Map<String, String> joins = joinSettings(algorithm != null ? algorithm : i % 2 == 1 ? "mergePath" : null);
        Outcome cpu = run(sql, false, aqe, joins);
        Outcome gpu = run(sql, true, aqe, joins);
        ran++;
        if (gpu.converted) converted++;
        roundTrips.addAll(gpu.roundTrips.stream().map(t -> sql + "\n  " + t).toList());
        String where = "seed " + seed + ", query " + i + " (adaptive " + aqe + ", " + joins + "): " + sql;
        if (cpu.error != null) {
          if (gpu.error != null) {
            bothFailed++;
          } else {
            failures.add(where + "\n  the CPU failed (" + cpu.error + ") but the plugin answered " + gpu.rows);
          }
        } else if (gpu.error != null) {
          failures.add(where + "\n  the plugin failed where the CPU answered: " + gpu.error + "\n  GPU plan:\n"
              + gpu.plan);
        } else {
          Answers.difference(cpu.rows, gpu.rows, cpu.ordered, 0).ifPresent(d -> failures.add(where + "\n  " + d
              + "\n  CPU plan:\n" + cpu.plan + "\n  GPU plan:\n" + gpu.plan));
        }
      }
    }
    failures.forEach(f -> System.out.println("fuzz failure: " + f.lines().limit(4).reduce((a, b) -> a + " | " + b)
        .orElse("")));
    System.out.printf("fuzz: %d queries over seeds %s, %d with plugin operators, %d failed on both sides alike, "
        + "%d differences%n", ran, Arrays.toString(seeds), converted, bothFailed, failures.size());
    // a fuzzer whose queries all stay on the CPU would check nothing
    assertTrue(converted > ran / 2, "only " + converted + " of " + ran + " queries used a plugin operator");
    assertTrue(roundTrips.isEmpty(), "device batches downloaded only to be uploaded again:\n"
        + String.join("\n", roundTrips.subList(0, Math.min(5, roundTrips.size()))));
    assertTrue(failures.isEmpty(), failures.size() + " of " + ran + " queries differ:\n\n"
        + String.join("\n\n", failures.subList(0, Math.min(5, failures.size()))));
  }

  /**
   * One side's run of a query: its rows or its error, whether its order counts, its executed plan and whether that
   * holds a plugin operator.
   */
  private record Outcome(List<Row> rows, Throwable error, boolean ordered, String plan, boolean converted,
      List<String> roundTrips) {}

  /**
   * Whether the answer's row order is determined: an ORDER BY over every output column is total unless a column is
   * floating, since Spark sorts -0.0 equal to 0.0 and their rows may come in either order.
   */
  private static boolean totallyOrdered(Dataset<Row> query) {
    return Answers.isOrdered(query.queryExecution().analyzed()) && Arrays.stream(query.schema().fields())
        .noneMatch(f -> f.dataType() instanceof FloatType || f.dataType() instanceof DoubleType);
  }

  /** The join algorithm, with every join shuffled for the merge join; nothing for the default. */
  private static Map<String, String> joinSettings(String algorithm) {
    if (algorithm == null) return Map.of();
    return algorithm.equalsIgnoreCase("mergePath") ? Map.of(JoinStrategy.JOIN_ALGORITHM, algorithm,
        JoinStrategy.AUTO_BROADCAST_THRESHOLD, "-1") : Map.of(JoinStrategy.JOIN_ALGORITHM, algorithm);
  }

  private static Outcome run(String sql, boolean plugin, boolean aqe, Map<String, String> joins) {
    Map<String, String> settings = new HashMap<>(joins);
    settings.put(QueryCheck.ENABLED, Boolean.toString(plugin));
    settings.put(QueryCheck.ADAPTIVE, Boolean.toString(aqe));
    return withConf(settings,
        () -> {
          Dataset<Row> query = null;
          try {
            query = spark().sql(sql);
            List<Row> rows = query.collectAsList();
            SparkPlan plan = query.queryExecution().executedPlan();
            return new Outcome(rows, null, totallyOrdered(query), plan.treeString(),
                !PlanNodes.pluginNodes(plan).isEmpty(), PlanNodes.roundTrips(plan));
          } catch (Exception e) {
            return new Outcome(null, e, false, query == null ? "(none)" : query.queryExecution().toString(), false,
                List.of());
          }
        });
  }
}
