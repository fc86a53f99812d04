package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.SORT;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.it.data.TypeCase;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.QueryCheck;
import io.sparkwarp.it.harness.SharedSpark;
import io.sparkwarp.plugin.exec.GpuMetrics;
import io.sparkwarp.plugin.exec.GpuSortExec;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.execution.SparkPlan;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sorts whose partitions outgrow {@code spark.warp.sort.runBytes} (a few KB here): each partition is sorted in runs
 * that spill to host memory and are merged on the device. Answers must equal Spark's row for row (every order ends in
 * a unique key, so it is total) for every key type, every direction and null order, NaN and -0.0, multi-byte
 * strings, several keys, a key holding most rows, an all-null key, a limit on top and a local sort (compared as a
 * multiset, as Spark leaves its order to the partitions); and every GPU sort must have spilled, one of them more runs
 * than a merge reads at once. The merge itself is tested row for row on every type in HostRunMergeTest.
 */
class SortSpillTest extends GpuTestBase {
  private static final List<String> DIRECTIONS = List.of("ASC NULLS FIRST", "DESC NULLS LAST", "ASC NULLS LAST",
      "DESC NULLS FIRST");
  /** Generated rows as Parquet (so the GPU scans them): keys with NaN, -0.0, nulls, multi-byte strings, skew. */
  private static final String ROWS = "sort_spill_rows";

  @BeforeAll
  static void registerRows() {
    String path = SharedSpark.scratchDir().resolve("tables").resolve(ROWS).toString();
    spark().sql("""
      SELECT id, CASE WHEN id % 11 = 0 THEN NULL ELSE concat('ключ', id % 97, '😀') END AS s,
             CASE WHEN id % 13 = 0 THEN NULL ELSE CAST(id % 89 AS DECIMAL(12, 2)) / 4 END AS d,
             CASE id % 5 WHEN 0 THEN double('NaN') WHEN 1 THEN -0.0 WHEN 2 THEN 0.0 WHEN 3 THEN NULL
                  ELSE (id % 83) / 3.0 END AS f,
             CASE WHEN id % 3 = 0 THEN id % 50 ELSE 7 END AS hot, CAST(NULL AS INT) AS nothing
      FROM range(0, 1500, 1, 3)""").write().mode("overwrite").parquet(path);
    spark().read().parquet(path).createOrReplaceTempView(ROWS);
  }

  /** {@code sql} with a run budget of {@code runBytes}, every GPU sort of it required to have spilled. */
  private static QueryCheck spilling(String sql, String runBytes, long minRuns) {
    return query(sql).conf("spark.warp.sort.runBytes", runBytes).conf("spark.sql.shuffle.partitions", "2")
        .adaptive(QueryCheck.Adaptive.ON).gpuNodes(SORT).gpuPlan(plan -> assertSpilled(plan, minRuns));
  }

  private static void assertSpilled(SparkPlan plan, long minRuns) {
    List<GpuSortExec> sorts = PlanNodes.all(plan).stream().filter(GpuSortExec.class::isInstance)
        .map(GpuSortExec.class::cast).toList();
    for (GpuSortExec sort : sorts) {
      long bytes = sort.metrics().apply(GpuMetrics.SPILL_BYTES).value();
      long runs = sort.metrics().apply(GpuMetrics.SORT_RUNS).value();
      assertTrue(bytes > 0 && runs >= minRuns, "the sort spilled " + bytes + " bytes in " + runs + " runs, "
          + "expected at least " + minRuns + " runs\n" + plan.treeString());
    }
  }

  /**
   * Each query leads with three types' keys, each in its own direction (every direction and null order among the four
   * queries, every type once); a unique key last.
   */
  @ParameterizedTest
  @ValueSource(ints = {0, 1, 2, 3})
  void everyKeyTypeAndDirection(int query) {
    TypeCase[] types = TypeCase.values();
    StringBuilder order = new StringBuilder();
    List<String> columns = new ArrayList<>();
    for (int k = 0; k < 3; k++) {
      String key = types[3 * query + k].a();
      columns.add(key);
      order.append(key).append(' ').append(DIRECTIONS.get((query + k) % 4)).append(", ");
    }
    // about three runs a partition: the rows grow wider from the booleans to the strings and binaries
    String runBytes = List.of("2k", "4k", "5k", "8k").get(query);
    spilling("SELECT id, " + String.join(", ", columns) + " FROM all_types ORDER BY " + order + "id", runBytes, 2)
        .matchesCpu();
  }

  @Test
  void severalKeysNanNullsAndMultiByteStrings() {
    spilling("SELECT * FROM " + ROWS + " ORDER BY f DESC NULLS LAST, s DESC NULLS FIRST, d NULLS LAST, id DESC",
        "16k", 2).matchesCpu();
  }

  /** An all-null leading key, then one that holds most rows; a limit on top (past the threshold: sort and limit). */
  @Test
  void allNullAndSkewedKeysUnderALimit() {
    spilling("SELECT * FROM " + ROWS + " ORDER BY nothing, hot DESC, s, id LIMIT 700", "16k", 2)
        .conf("spark.sql.execution.topKSortFallbackThreshold", "100").matchesCpu();
  }

  @Test
  void moreRunsThanOneMergeReadsAreMergedInGroups() {
    spilling("SELECT id, s, f FROM " + ROWS + " WHERE id < 500 ORDER BY s, f DESC, id", "1k", 17)
        .conf("spark.sql.shuffle.partitions", "1").matchesCpu();
  }

  @Test
  void aLocalSort() {
    spilling("SELECT * FROM " + ROWS + " DISTRIBUTE BY hot SORT BY f, s, id", "16k", 2).matchesCpu();
  }
}
