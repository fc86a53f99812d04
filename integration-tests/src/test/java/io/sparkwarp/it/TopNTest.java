package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.HASH_AGGREGATE;
import static io.sparkwarp.it.harness.GpuNodes.TOP_N;

import io.sparkwarp.it.data.TypeCase;
import io.sparkwarp.it.harness.GpuTestBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * ORDER BY ... LIMIT over a GPU input: each partition cut to its top N on the device (GpuTopNExec) under Spark's
 * TakeOrderedAndProjectExec, the answer in Spark's order. Every key type in every direction and null order, NaN and
 * -0.0, several keys, offsets, limits past the row count, empty and all-null inputs, an aggregate underneath; a
 * key that is an expression keeps Spark's operator alone. The
 * orders end in unique or whole-row keys, so the first N rows are one answer.
 */
class TopNTest extends GpuTestBase {
  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("io.sparkwarp.it.data.TypeCase#withSortDirections")
  void everyKeyTypeAndDirection(TypeCase type, String direction) {
    String a = type.a();
    assertGpuMatchesCpu("SELECT id, " + a + ", skew FROM all_types ORDER BY " + a + " " + direction
        + ", id LIMIT 37", TOP_N);
  }

  @Test
  void severalKeysOfMixedDirections() {
    assertGpuMatchesCpu("SELECT str_a, dec_a, double_a, id FROM all_types "
        + "ORDER BY str_a DESC NULLS LAST, dec_a, double_a DESC, id LIMIT 100", TOP_N);
  }

  @Test
  void offsetSkipsTheFirstRows() {
    assertGpuMatchesCpu("SELECT id, long_a FROM all_types ORDER BY long_a DESC, id LIMIT 10 OFFSET 7", TOP_N);
  }

  @Test
  void limitPastTheRows() {
    assertGpuMatchesCpu("SELECT id, int_a, str_b FROM all_types WHERE skew = 0 ORDER BY int_a, id LIMIT 100000",
        TOP_N);
  }

  @Test
  void emptyAndAllNullInputs() {
    assertGpuMatchesCpu("SELECT id, int_a FROM empty_types ORDER BY int_a, id LIMIT 5", TOP_N);
    assertGpuMatchesCpu("SELECT id, str_a, dec_a FROM all_null_types ORDER BY str_a DESC, dec_a, id LIMIT 5", TOP_N);
  }

  @Test
  void topGroupsOfAnAggregate() {
    // TPC-H Q3's shape: the biggest sums, a wide decimal key, ties broken by the group key
    assertGpuMatchesCpu("SELECT skew, int_a % 50 AS g, sum(dec_a) AS total, count(*) AS n FROM all_types "
        + "GROUP BY skew, int_a % 50 ORDER BY total DESC NULLS LAST, skew, g LIMIT 20", TOP_N, HASH_AGGREGATE);
  }

  @Test
  void keysThatAreExpressionsStayOnTheCpu() {
    assertFallsBack("SELECT id, int_a FROM all_types ORDER BY id % 7, id LIMIT 5", "TakeOrderedAndProjectExec",
        "is not a column of the input");
  }
}
