package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.HASH_AGGREGATE;
import static io.sparkwarp.it.harness.GpuNodes.SHUFFLE_EXCHANGE;
import static io.sparkwarp.it.harness.GpuNodes.SORT;

import io.sparkwarp.it.data.TypeCase;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.JoinStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ORDER BY over a GPU input: the range exchange's bounds sampled from the device batches and the rows placed by them
 * on the device (GpuShuffleExchangeExec with range partitioning), each partition sorted on the device (GpuSortExec);
 * the answer compared with Spark's in order. Every key type in every direction and null order (NaN, -0.0, nulls,
 * multi-byte strings), several keys, skewed keys whose bounds repeat, partition counts from 1 to more than the rows,
 * empty and all-null inputs, an aggregate underneath (TPC-H's final sorts), SORT BY (a local sort); keys that are
 * expressions, and input from a CPU operator, keep Spark's sort with the reason. The orders end in unique or
 * whole-row keys, so the answer's order is one.
 */
class SortTest extends GpuTestBase {
  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("io.sparkwarp.it.data.TypeCase#withSortDirections")
  void everyKeyTypeAndDirection(TypeCase type, String direction) {
    String a = type.a();
    assertGpuMatchesCpu("SELECT id, " + a + ", skew FROM all_types ORDER BY " + a + " " + direction + ", id", SORT,
        SHUFFLE_EXCHANGE);
  }

  @Test
  void severalKeysOfMixedDirections() {
    assertGpuMatchesCpu("SELECT str_a, dec_a, double_a, id FROM all_types "
        + "ORDER BY str_a DESC NULLS LAST, dec_a, double_a DESC, id", SORT, SHUFFLE_EXCHANGE);
  }

  @ParameterizedTest(name = "{0} partitions")
  @ValueSource(strings = {"1", "3", "64", "5000"})
  void skewedKeysOverAnyPartitionCount(String partitions) {
    // 90% of the rows share one key, so the sampled bounds repeat it; few samples make the sketch resample
    query("SELECT skew, str_b, id FROM all_types ORDER BY skew DESC, str_b, id")
        .conf("spark.sql.shuffle.partitions", partitions)
        .conf("spark.sql.execution.rangeExchange.sampleSizePerPartition", "2")
        .gpuNodes(SORT, SHUFFLE_EXCHANGE).matchesCpu();
  }

  @Test
  void emptyAndAllNullInputs() {
    // the range exchange samples no rows; adaptive execution then drops the sort of nothing, as it does for Spark
    query("SELECT id, int_a FROM empty_types ORDER BY int_a, id")
        .conf(JoinStrategy.ADAPTIVE_EXCLUDED_RULES, JoinStrategy.PROPAGATE_EMPTY_RELATION).gpuNodes(SHUFFLE_EXCHANGE)
        .matchesCpu();
    assertGpuMatchesCpu("SELECT id, str_a, dec_a FROM all_null_types ORDER BY str_a DESC, dec_a, id", SORT);
  }

  @Test
  void sortedGroupsOfAnAggregate() {
    // TPC-H Q1's shape: a few groups sorted by their keys after the final aggregate
    assertGpuMatchesCpu("SELECT skew, int_a % 5 AS g, sum(dec_a) AS total, count(*) AS n FROM all_types "
        + "GROUP BY skew, int_a % 5 ORDER BY skew, g", SORT, SHUFFLE_EXCHANGE, HASH_AGGREGATE);
  }

  @Test
  void sortByIsALocalSort() {
    assertGpuMatchesCpu("SELECT id, long_a FROM all_types DISTRIBUTE BY skew SORT BY long_a DESC, id", SORT);
  }

  @Test
  void keysThatAreExpressionsStayOnTheCpu() {
    assertFallsBack("SELECT id, int_a FROM all_types ORDER BY id % 7, id", "SortExec", "is not a column of the input");
  }

  @Test
  void rowsFromACpuOperatorStayOnTheCpu() {
    assertFallsBack("SELECT id FROM range(100) ORDER BY id DESC", "SortExec", "its input is not on the GPU");
  }
}
