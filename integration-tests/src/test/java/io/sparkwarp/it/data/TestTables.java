package io.sparkwarp.it.data;

import java.util.function.UnaryOperator;
import org.apache.spark.sql.SparkSession;

/**
 * The standard views of the integration tests, registered once per JVM:
 *
 * <ul>
 *   <li>{@value #ALL_TYPES}: {@value #ROWS} rows as Parquet: {@code id} (unique long), {@code skew} (int, one value
 *       in 90% of rows), columns {@code <type>_a} and {@code <type>_b} of every {@link TypeCase}, and
 *       {@code dec7_a}, {@code dec7_b} (decimal(7,2), narrow enough that products and quotients stay within 18
 *       digits);
 *   <li>{@value #ALL_TYPES_ROWS}: the same rows scanned row by row;
 *   <li>{@value #EMPTY}: the same columns, no rows; {@value #ALL_NULL}: the same columns, only nulls;
 *   <li>{@value #FALLBACK_TYPES}: {@code id}, {@code int_a} and columns the device cannot hold: {@code dec38}
 *       (decimal(38,10)), {@code arr} (array&lt;int&gt;), {@code kv} (map&lt;string,int&gt;), {@code lcase}
 *       (string collate UTF8_LCASE).
 * </ul>
 */
public final class TestTables {
  public static final String ALL_TYPES = "all_types";
  public static final String ALL_TYPES_ROWS = "all_types_rows";
  public static final String EMPTY = "empty_types";
  public static final String ALL_NULL = "all_null_types";
  public static final String FALLBACK_TYPES = "fallback_types";
  public static final int ROWS = 1024;

  private static boolean registered;

  private TestTables() {}

  public static synchronized void register(SparkSession spark) {
    if (registered) return;
    allTypes(ROWS, false).parquetView(spark, ALL_TYPES);
    allTypes(ROWS, false).rowView(spark, ALL_TYPES_ROWS);
    allTypes(0, false).parquetView(spark, EMPTY);
    allTypes(64, true).parquetView(spark, ALL_NULL);
    TableGen.rows(ROWS)
        .column("id", Gens.uniqueLongs())
        .column("int_a", Gens.ints())
        .column("dec38", Gens.decimals(38, 10))
        .column("arr", Gens.intArrays())
        .column("kv", Gens.stringToIntMaps())
        .column("lcase", Gens.lowercaseCollatedStrings())
        .parquetView(spark, FALLBACK_TYPES);
    registered = true;
  }

  /** The columns of {@value #ALL_TYPES}; with {@code allNull} every value is null. */
  public static TableGen allTypes(int rows, boolean allNull) {
    UnaryOperator<ColumnGen> nulls = gen -> allNull ? gen.nulls(1) : gen;
    TableGen table = TableGen.rows(rows)
        .column("id", nulls.apply(Gens.uniqueLongs()))
        .column("skew", nulls.apply(Gens.skewedInts(7, 0.9)));
    for (TypeCase type : TypeCase.values()) {
      table.column(type.a(), nulls.apply(type.gen())).column(type.b(), nulls.apply(type.gen()));
    }
    return table.column("dec7_a", nulls.apply(Gens.decimals(7, 2))).column("dec7_b", nulls.apply(Gens.decimals(7, 2)));
  }
}
