package io.sparkwarp.it.data;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The join tables hold what the join tests rely on: keys matching across the sides, nulls, a hot key. */
class JoinTablesTest {
  private static final List<Row> PROBE = JoinTables.probe().generate();
  private static final List<Row> BUILD = JoinTables.build().generate();
  private static final StructType SCHEMA = JoinTables.probe().schema();

  private static List<Object> column(List<Row> rows, String name) {
    int index = SCHEMA.fieldIndex(name);
    return rows.stream().map(row -> row.get(index)).toList();
  }

  /** The non-null values, binaries as hex so that they compare by content. */
  private static Set<Object> nonNull(List<Row> rows, String name) {
    Set<Object> values = new HashSet<>();
    column(rows, name).stream().filter(Objects::nonNull)
        .forEach(v -> values.add(v instanceof byte[] bytes ? HexFormat.of().formatHex(bytes) : v));
    return values;
  }

  @ParameterizedTest
  @ValueSource(strings = {"k_int", "k_long", "k_date", "k_ts", "k_dec12", "k_dec18", "k_str", "k_bin"})
  void everyKeyMatchesAcrossTheSidesAndHasNulls(String key) {
    Set<Object> shared = nonNull(PROBE, key);
    shared.retainAll(nonNull(BUILD, key));
    assertTrue(shared.size() >= 5, key + " shares only " + shared);
    assertTrue(column(PROBE, key).contains(null) && column(BUILD, key).contains(null), key + " lacks nulls");
  }

  @Test
  void theIntAndStringKeysMatchTogether() {
    Set<String> shared = keyPairs(PROBE);
    shared.retainAll(keyPairs(BUILD));
    assertTrue(shared.size() >= 5, "(k_int, k_str) shares only " + shared);
  }

  private static Set<String> keyPairs(List<Row> rows) {
    int k = SCHEMA.fieldIndex("k_int");
    int s = SCHEMA.fieldIndex("k_str");
    Set<String> pairs = new HashSet<>();
    rows.stream().filter(row -> !row.isNullAt(k) && !row.isNullAt(s))
        .forEach(row -> pairs.add(row.get(k) + "|" + row.get(s)));
    return pairs;
  }

  @Test
  void stringKeysIncludeEmptyAndMultiByteValuesOnBothSides() {
    for (String value : List.of("", "é", "€", "😀", "aé€😀")) {
      assertTrue(column(PROBE, "k_str").contains(value) && column(BUILD, "k_str").contains(value), "'" + value + "'");
    }
  }

  @Test
  void theHotKeyMatchesHundredsOfBuildRows() {
    long hot = column(BUILD, "hot").stream().filter(v -> Objects.equals(v, JoinTables.HOT_KEY)).count();
    assertTrue(hot >= 200, hot + " build rows hold the hot key");
    assertTrue(column(PROBE, "hot").contains(JoinTables.HOT_KEY), "the probe side never holds the hot key");
  }
}
