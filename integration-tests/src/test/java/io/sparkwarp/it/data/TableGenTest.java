package io.sparkwarp.it.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.it.harness.Answers;
import io.sparkwarp.it.harness.SharedSpark;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.IntStream;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.MapType;
import org.apache.spark.sql.types.StringType;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The generators make what the tests rely on: edge cases, nulls, skew, unique keys, the same rows for a seed. */
class TableGenTest {
  private static final List<Row> ALL_TYPES = TestTables.allTypes(TestTables.ROWS, false).generate();
  private static final StructType SCHEMA = TestTables.allTypes(0, false).schema();

  private static List<Object> column(String name) {
    int index = SCHEMA.fieldIndex(name);
    return ALL_TYPES.stream().map(row -> row.get(index)).toList();
  }

  @Test
  void theSameSeedGivesTheSameRowsAndAnotherSeedOthers() {
    TableGen table = TableGen.rows(50).column("d", Gens.doubles()).column("s", Gens.strings());
    assertEquals(Optional.empty(), Answers.difference(table.generate(), table.generate(), true, 0));
    assertTrue(Answers.difference(table.generate(), table.seed(7).generate(), false, 0).isPresent());
  }

  @ParameterizedTest
  @EnumSource(TypeCase.class)
  void everyEdgeCaseOfEveryTypeAppears(TypeCase type) {
    for (String name : List.of(type.a(), type.b())) {
      List<Object> values = column(name);
      for (Object special : type.gen().specials()) {
        // deepEquals: NaN equals NaN, -0.0 differs from 0.0, arrays by content
        assertTrue(values.stream().anyMatch(v -> Objects.deepEquals(v, special)), name + " lacks " + special);
      }
      long nulls = values.stream().filter(Objects::isNull).count();
      assertTrue(nulls > 50 && nulls < 160, name + " has " + nulls + " nulls of " + values.size());
    }
  }

  @Test
  void stringsHoldEveryUtf8Width() {
    List<Object> strings = column("str_a");
    for (int width = 1; width <= 4; width++) {
      int w = width;
      assertTrue(strings.stream().filter(Objects::nonNull).flatMapToInt(s -> ((String) s).codePoints())
          .anyMatch(cp -> new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8).length == w),
          "no " + width + "-byte code point");
    }
    assertTrue(strings.contains(""));
  }

  @Test
  void keysAreUniqueOrSkewed() {
    List<Object> ids = column("id");
    assertEquals(TestTables.ROWS, ids.stream().distinct().count());
    assertFalse(ids.contains(null));
    long hot = column("skew").stream().filter(Integer.valueOf(7)::equals).count();
    assertTrue(hot > 0.85 * TestTables.ROWS && hot < 0.95 * TestTables.ROWS, hot + " rows hold the hot key");
  }

  @Test
  void theAllNullTableIsOnlyNulls() {
    List<Row> rows = TestTables.allTypes(64, true).generate();
    assertEquals(64, rows.size());
    assertTrue(rows.stream().allMatch(row -> IntStream.range(0, row.length()).allMatch(row::isNullAt)));
  }

  @Test
  void theViewsReadBackWhatWasGenerated() {
    SparkSession spark = SharedSpark.get();
    TestTables.register(spark);
    for (String view : List.of(TestTables.ALL_TYPES, TestTables.ALL_TYPES_ROWS)) {
      assertEquals(Optional.empty(),
          Answers.difference(ALL_TYPES, spark.table(view).collectAsList(), false, 0), view);
    }
    assertEquals(0, spark.table(TestTables.EMPTY).count());
    assertEquals(SCHEMA, spark.table(TestTables.EMPTY).schema());
  }

  @Test
  void theFallbackTableHoldsTypesTheDeviceCannot() {
    SparkSession spark = SharedSpark.get();
    TestTables.register(spark);
    StructType schema = spark.table(TestTables.FALLBACK_TYPES).schema();
    assertEquals(DataTypes.createDecimalType(38, 10), schema.apply("dec38").dataType());
    assertTrue(schema.apply("arr").dataType() instanceof ArrayType);
    assertTrue(schema.apply("kv").dataType() instanceof MapType);
    StringType collated = (StringType) schema.apply("lcase").dataType();
    assertFalse(collated.supportsBinaryEquality());
    assertNotEquals(0, spark.sql("SELECT * FROM fallback_types WHERE lcase = 'ABC'").count(),
        "the collation matches 'abc' and 'ABC' alike");
  }
}
