package io.sparkwarp.it.harness;

import io.sparkwarp.it.data.TestTables;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeAll;

/**
 * Base of the integration tests: the shared session with the standard test views registered, and the CPU-versus-GPU
 * assertions of {@link QueryCheck} in their common forms.
 */
public abstract class GpuTestBase {
  @BeforeAll
  static void registerTestTables() {
    TestTables.register(spark());
  }

  protected static SparkSession spark() {
    return SharedSpark.get();
  }

  protected static QueryCheck query(String sql) {
    return QueryCheck.sql(sql);
  }

  protected static QueryCheck query(String description, Function<SparkSession, Dataset<Row>> query) {
    return QueryCheck.of(description, query);
  }

  /** Same answer on the GPU as on the CPU, with adaptive execution on and off, and these nodes in the GPU plan. */
  protected static void assertGpuMatchesCpu(String sql, String... expectedGpuNodes) {
    query(sql).gpuNodes(expectedGpuNodes).matchesCpu();
  }

  protected static void assertGpuMatchesCpu(Function<SparkSession, Dataset<Row>> query, String... expectedGpuNodes) {
    query("Dataset query", query).gpuNodes(expectedGpuNodes).matchesCpu();
  }

  /** Same answer, and {@code cpuNode} stays on the CPU with a reason containing {@code reason}. */
  protected static void assertFallsBack(String sql, String cpuNode, String reason) {
    query(sql).fallsBack(cpuNode, reason);
  }

  protected static void assertFallsBack(Function<SparkSession, Dataset<Row>> query, String cpuNode, String reason) {
    query("Dataset query", query).fallsBack(cpuNode, reason);
  }

  /** Runs {@code body} with these session settings, then restores the previous ones. */
  protected static <T> T withConf(Map<String, String> settings, Supplier<T> body) {
    return QueryCheck.withConf(settings, body);
  }
}
