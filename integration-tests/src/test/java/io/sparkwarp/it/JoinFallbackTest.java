package io.sparkwarp.it;

import io.sparkwarp.it.data.JoinTables;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.JoinStrategy;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Joins that stay on the CPU, each with its reason: keys the device cannot compute or compare. */
class JoinFallbackTest extends GpuTestBase {
  @BeforeAll
  static void registerJoinTables() {
    JoinTables.register(spark());
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      // a computed string: only a bare column can be a string on the device
      "CASE WHEN l.v > 0 THEN l.k_str ELSE 'x' END = r.k_str | join key: STRING-valued CaseWhen is not supported",
      // the expression has no GPU version
      "concat(l.k_str, 'x') = r.k_str | join key: expression Concat",
      // a key type the kernels do not compare
      "CAST(l.v % 100 AS SMALLINT) = CAST(r.v % 100 AS SMALLINT) | of type smallint is not supported"})
  void keysTheDeviceCannotComputeOrCompare(String on, String reason) {
    JoinStrategy.SHUFFLED_HASH.checkFallsBack("SELECT " + JoinStrategy.SHUFFLED_HASH.hint("r")
        + " l.id, r.id FROM join_probe l JOIN join_build r ON " + on, reason);
  }
}
