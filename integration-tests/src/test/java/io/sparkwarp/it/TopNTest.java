package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.HASH_AGGREGATE;
import static io.sparkwarp.it.harness.GpuNodes.TOP_N;

import io.sparkwarp.it.data.TestTables;
import io.sparkwarp.it.data.TypeCase;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.QueryCheck.Adaptive;
import io.sparkwarp.it.harness.SharedSpark;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ORDER BY ... LIMIT over a GPU input: each partition cut to its top N on the device (GpuTopNExec) under Spark's
 * TakeOrderedAndProjectExec, the answer in Spark's order. Every key type in every direction and null order, NaN and
 * -0.0, several keys, offsets, limits past the row count, empty and all-null inputs, an aggregate underneath; a
 * key that is an expression keeps Spark's operator alone. Over batches many times the limit, where rows are selected
 * before they are sorted: every key type and direction at limits 1 to past the rows, ties at the cut, strings whose
 * prefixes tie. The orders end in unique or whole-row keys, so the first N rows are one answer.
 */
class TopNTest extends GpuTestBase {
  /**
   * Enough rows that each partition's batch holds many times the limit, so the select before the sort runs
   * (TopSelect), except at a limit past the rows.
   */
  private static final String MANY_ROWS = "top_n_many_rows";

  /** {@value #MANY_ROWS}' ids and str_a behind 8 bytes they all share: every row's prefix ties. */
  private static final String SHARED_PREFIX = "top_n_shared_prefix";

  @BeforeAll
  static void registerManyRows() {
    TestTables.allTypes(16_000, false).parquetView(spark(), MANY_ROWS);
    String path = SharedSpark.scratchDir().resolve("tables").resolve(SHARED_PREFIX).toString();
    spark().sql("SELECT id, concat('same 8b:', str_a) AS s FROM " + MANY_ROWS).write().mode("overwrite")
        .parquet(path);
    spark().read().parquet(path).createOrReplaceTempView(SHARED_PREFIX);
  }

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

  /**
   * Each key type in both directions and null orders, at limits 1, 10 and 1000 (the batches hold 8,000 rows), in one
   * query: their union, whose answer compares as a multiset of each top-N's rows, each under a total order. A tenth
   * of the rows are null, so the top 1000 with nulls first holds nulls and values. Adaptive execution off: it changes
   * nothing under a top-N, and the cases are many.
   */
  @ParameterizedTest
  @EnumSource(TypeCase.class)
  void selectsBeforeSortingEveryKeyTypeAndDirection(TypeCase type) {
    String[][] orders = {{"ASC NULLS LAST", "10"}, {"ASC NULLS FIRST", "1000"}, {"DESC NULLS LAST", "1"},
        {"DESC NULLS FIRST", "1000"}};
    String union = Stream.of(orders).map(o -> "SELECT '" + o[0] + " " + o[1] + "' AS top, * FROM (SELECT id, "
        + type.a() + ", " + type.b() + " FROM " + MANY_ROWS + " ORDER BY " + type.a() + " " + o[0] + ", id LIMIT "
        + o[1] + ")").collect(Collectors.joining(" UNION ALL "));
    query(union).adaptive(Adaptive.OFF).gpuNodes(TOP_N).matchesCpu();
  }

  /** skew holds one value in 90% of the rows: the cut falls among rows of one prefix, which all stay candidates. */
  @ParameterizedTest
  @ValueSource(ints = {1, 10, 1000})
  void duplicatesAtTheCut(int n) {
    assertGpuMatchesCpu("SELECT skew, bool_a, id, str_a FROM " + MANY_ROWS + " ORDER BY skew, bool_a DESC NULLS LAST, "
        + "id LIMIT " + n, TOP_N);
  }

  /**
   * Several keys: the select reads the first one's prefix, the sort of the candidates all of them; and a limit past
   * the rows, where nothing is selected.
   */
  @Test
  void severalKeysWithAStringFirst() {
    assertGpuMatchesCpu("SELECT str_a, double_a, dec_a, id FROM " + MANY_ROWS
        + " ORDER BY str_a DESC NULLS FIRST, double_a, dec_a DESC, id LIMIT 25", TOP_N);
    assertGpuMatchesCpu("SELECT float_a, ts_b, id FROM " + MANY_ROWS
        + " ORDER BY float_a DESC NULLS LAST, ts_b NULLS FIRST, id LIMIT 10", TOP_N);
    assertGpuMatchesCpu("SELECT double_a, str_b, id FROM " + MANY_ROWS
        + " ORDER BY double_a, str_b DESC, id LIMIT 20000", TOP_N);
  }

  /** Strings that share their first 8 bytes: every prefix ties, so every row is a candidate and the sort decides. */
  @Test
  void stringsThatShareTheirPrefix() {
    assertGpuMatchesCpu("SELECT s, id FROM " + SHARED_PREFIX + " ORDER BY s DESC, id LIMIT 10", TOP_N);
  }

  @Test
  void keysThatAreExpressionsStayOnTheCpu() {
    assertFallsBack("SELECT id, int_a FROM all_types ORDER BY id % 7, id LIMIT 5", "TakeOrderedAndProjectExec",
        "is not a column of the input");
  }
}
