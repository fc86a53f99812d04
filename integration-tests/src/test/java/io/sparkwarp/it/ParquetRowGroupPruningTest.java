package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.GPU_TO_HOST;
import static io.sparkwarp.it.harness.GpuNodes.PARQUET_SCAN;
import static io.sparkwarp.it.harness.GpuNodes.PROJECT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.PlanNodes;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.QueryCheck;
import io.sparkwarp.it.harness.SharedSpark;
import io.sparkwarp.plugin.exec.GpuParquetScanExec;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.SparkPlan;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The GPU scan skips the row groups Spark's reader skips: Spark's pushed filters, turned into parquet-mr predicates
 * per file, against row group statistics, dictionaries and bloom filters; and within row groups the data pages the
 * column indexes rule out. Over a file sorted by id in many small row groups, a selective filter must read few of
 * them, and the answer must stay Spark's (pruning only ever drops rows without a match; the filter itself still
 * runs).
 */
class ParquetRowGroupPruningTest extends GpuTestBase {
  private static final int ROWS = 200_000;

  @BeforeAll
  static void writeSortedFile() {
    String path = SharedSpark.scratchDir().resolve("tables").resolve("pq_sorted").toString();
    spark().range(0, ROWS, 1, 1)
        .selectExpr("id", "cast(id % 1000 AS int) AS small", "concat('k', cast(id DIV 5000 AS string)) AS bucket",
            "date_add(DATE '2020-01-01', cast(id DIV 1000 AS int)) AS day", "cast(id AS decimal(12, 2)) AS amount",
            "CASE WHEN id % 7 = 0 THEN NULL ELSE id END AS sparse")
        .write().mode("overwrite").options(Map.of("compression", "snappy", "parquet.block.size", "65536",
            "parquet.page.size", "8192"))
        .parquet(path);
    spark().read().parquet(path).createOrReplaceTempView("pq_sorted");
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "SELECT * FROM pq_sorted WHERE id < 1000",
      "SELECT id, bucket FROM pq_sorted WHERE id BETWEEN 150000 AND 150100",
      "SELECT id FROM pq_sorted WHERE id IN (5, 123456, 199999)",
      "SELECT count(*) FROM pq_sorted WHERE bucket = 'k17'",
      "SELECT id, day FROM pq_sorted WHERE day = DATE '2020-03-01'",
      "SELECT sum(amount) FROM pq_sorted WHERE amount >= 199000",
      "SELECT id FROM pq_sorted WHERE sparse IS NULL AND id > 190000",
      "SELECT * FROM pq_sorted WHERE id < 0",
      "SELECT id FROM pq_sorted WHERE bucket LIKE 'k3%' AND id < 20000"})
  void selectiveFiltersReadFewRowGroups(String sql) {
    query(sql).gpuNodes(PARQUET_SCAN).matchesCpu();
    long total = rowGroups("SELECT id FROM pq_sorted", Map.of());
    long skipped = skippedRowGroups(sql, Map.of());
    assertTrue(total >= 10, "the file should hold many row groups, has " + total);
    assertTrue(skipped > total / 2, sql + ": skipped only " + skipped + " of " + total + " row groups");
  }

  @ParameterizedTest
  @ValueSource(strings = {"spark.sql.parquet.filterPushdown", "spark.sql.parquet.filterPushdown.date"})
  void pushDownSwitchedOffReadsEverything(String setting) {
    String sql = "SELECT id FROM pq_sorted WHERE day = DATE '2020-03-01'";
    query(sql).gpuNodes(PARQUET_SCAN, GPU_TO_HOST).conf(setting, "false").matchesCpu();
    assertEquals(0, skippedRowGroups(sql, Map.of(setting, "false")), setting + "=false");
  }

  @Test
  void columnIndexesSkipPagesWithinRowGroups() {
    // few row groups of many small pages (100 rows at most); the columns' pages end at different rows
    String path = SharedSpark.scratchDir().resolve("tables").resolve("pq_paged").toString();
    spark().range(0, 20_000, 1, 1)
        .selectExpr("id", "cast(id % 1000 AS int) AS small", "concat('k', cast(id DIV 2000 AS string)) AS flag",
            "repeat(cast(id AS string), 1 + cast(id % 5 AS int)) AS note",
            "CASE WHEN id % 7 = 0 THEN NULL ELSE id END AS sparse")
        .write().mode("overwrite").options(Map.of("compression", "snappy", "parquet.block.size", "262144",
            "parquet.page.size", "2048", "parquet.page.row.count.limit", "100"))
        .parquet(path);
    spark().read().parquet(path).createOrReplaceTempView("pq_paged");
    spark().read().option("parquet.filter.columnindex.enabled", "false").parquet(path)
        .createOrReplaceTempView("pq_paged_no_index");
    // a range across page edges, two ranges, dictionary strings, nothing kept, everything kept; the scan's pruning
    // is the same with adaptive execution on or off
    for (String where : List.of("id BETWEEN 12050 AND 12250", "id >= 19950 OR id < 120",
        "flag = 'k3' AND id % 3 = 0", "id < 0", "id >= 0")) {
      query("SELECT * FROM pq_paged WHERE " + where).gpuNodes(PARQUET_SCAN).adaptive(QueryCheck.Adaptive.OFF)
          .matchesCpu();
    }
    String sql = "SELECT id, note, sparse FROM pq_paged WHERE id BETWEEN 12050 AND 12250";
    long skipped = scanMetric(sql, Map.of(), "skippedPages");
    assertTrue(skipped > 100, "skipped only " + skipped + " pages");
    String off = sql.replace("pq_paged", "pq_paged_no_index");
    query(off).gpuNodes(PARQUET_SCAN).adaptive(QueryCheck.Adaptive.OFF).matchesCpu();
    assertEquals(0, scanMetric(off, Map.of(), "skippedPages"), "parquet.filter.columnindex.enabled=false");
  }

  @Test
  void aScalarSubqueryFilterKeepsTheScanOnTheGpu() {
    // TPC-H Q22's shape: Spark pushes the subquery's value into the scan only once it has run; the GPU scan is
    // planned before, with the other filters, and the answer stays Spark's
    String sql = "SELECT id, amount FROM pq_sorted WHERE id < 30000 AND amount > (SELECT avg(amount) FROM pq_sorted "
        + "WHERE small = 3)";
    // the filter too: the subquery's value is a literal of the program the executors compile
    query(sql).gpuNodes(PARQUET_SCAN, FILTER).matchesCpu();
    // adaptive execution off: the executed plan is the one that ran, without AQE's initial plans beside it
    withConf(Map.of("spark.warp.enabled", "true", "spark.sql.adaptive.enabled", "false"), () -> {
      Dataset<Row> result = spark().sql(sql);
      result.collectAsList();
      List<SparkPlan> scans = PlanNodes.all(result.queryExecution().executedPlan()).stream()
          .filter(n -> n.getClass().getSimpleName().endsWith("ScanExec")).toList();
      String plan = result.queryExecution().executedPlan().treeString();
      // the query's scan and the subquery's, both on the GPU; the query's still prunes by id < 30000
      assertEquals(2, scans.size(), plan);
      assertTrue(scans.stream().allMatch(n -> n instanceof GpuParquetScanExec), plan);
      assertTrue(scans.stream().mapToLong(n -> n.metrics().apply("skippedRowGroups").value()).sum() > 0, plan);
      return null;
    });
  }

  @Test
  void scalarSubqueriesInProjectionsAndOfNoRows() {
    query("SELECT id, amount - (SELECT max(amount) FROM pq_sorted WHERE small = 7) FROM pq_sorted WHERE id < 100")
        .gpuNodes(PROJECT).matchesCpu();
    // an empty subquery's value is null: the comparison is null for every row
    query("SELECT id FROM pq_sorted WHERE id < 500 OR amount > (SELECT avg(amount) FROM pq_sorted WHERE id < 0)")
        .gpuNodes(FILTER).matchesCpu();
  }

  private static long skippedRowGroups(String sql, Map<String, String> settings) {
    return scanMetric(sql, settings, "skippedRowGroups");
  }

  /** Row groups the query read: its batches, one per row group at a batch size of one byte. */
  private static long rowGroups(String sql, Map<String, String> settings) {
    return withConf(Map.of("spark.warp.parquet.batchBytes", "1"), () -> scanMetric(sql, settings,
        "numOutputBatches"));
  }

  private static long scanMetric(String sql, Map<String, String> settings, String metric) {
    Map<String, String> gpu = new java.util.HashMap<>(settings);
    gpu.put("spark.warp.enabled", "true");
    return withConf(gpu, () -> {
      Dataset<Row> result = spark().sql(sql);
      result.collectAsList();
      SparkPlan scan = PlanNodes.all(result.queryExecution().executedPlan()).stream()
          .filter(n -> n.getClass().getSimpleName().equals("GpuParquetScanExec")).findFirst().orElseThrow();
      return scan.metrics().apply(metric).value();
    });
  }
}
