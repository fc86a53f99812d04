package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.GPU_TO_HOST;
import static io.sparkwarp.it.harness.GpuNodes.ONTO_GPU;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.QueryCheck;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The plugin's session settings: every valid explain mode works, an invalid value fails naming its key. */
class ConfigTest extends GpuTestBase {
  private static final String FILTER_QUERY = "SELECT * FROM all_types WHERE int_a > int_b";

  @ParameterizedTest
  @ValueSource(strings = {"NONE", "NOT_ON_GPU", "ALL"})
  void everyExplainModeRuns(String mode) {
    query(FILTER_QUERY).conf(QueryCheck.EXPLAIN, mode).gpuNodes(FILTER, ONTO_GPU, GPU_TO_HOST).matchesCpu();
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource({"spark.warp.explain, BOGUS", "spark.warp.enabled, maybe"})
  void anInvalidValueFailsNamingItsKey(String key, String value) {
    // the plugin may refuse the value when it is set or when a query reads it: either is fast enough
    Exception e = assertThrows(Exception.class,
        () -> withConf(Map.of(key, value), () -> spark().sql(FILTER_QUERY).collectAsList()));
    StringBuilder messages = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) messages.append(t.getMessage()).append('\n');
    assertTrue(messages.toString().contains(key), "the error should name " + key + ":\n" + messages);
  }
}
