package io.sparkwarp.it.data;

import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;

/**
 * The differential fuzzer's tables, {@value #LEFT} and {@value #RIGHT}, as Parquet: the same columns drawn from
 * different seeds, small key domains so that joins match, and the values that break engines: nulls in every column,
 * a hot key, NaN, -0.0 and infinities, empty and multi-byte strings, LIKE's {@code % _ \} inside the data, decimals
 * of two precisions, dates and timestamps at the edges. Written in small row groups (pruned by pushed filters) over
 * several files, one table Snappy and one ZSTD in page v2 (its id, k2, dt and dec18 DELTA_BINARY_PACKED).
 *
 * <ul>
 *   <li>{@code id}: unique long; {@code k}: int in [0, 20), {@value #HOT_KEY} in a third of the rows;
 *       {@code k2}: long in [-5, 5]; {@code v}: int in [-100, 100] (arithmetic that stays in range);
 *   <li>{@code s}: string; {@code d}: double; {@code f}: float; {@code dec}: decimal(7,2);
 *       {@code dec18}: decimal(18,4); {@code dt}: date; {@code ts}: timestamp; {@code b}: boolean.
 * </ul>
 */
public final class FuzzTables {
  public static final String LEFT = "fuzz_l";
  public static final String RIGHT = "fuzz_r";
  public static final int HOT_KEY = 3;
  /** Strings with LIKE's and RLIKE's special characters, empty, blank and multi-byte ones. */
  public static final List<Object> STRINGS = List.of("", " ", "a", "ab", "abc", "ABC", "a%b", "a_b", "a\\b", "%",
      "_", "\\", "é", "日本", "😀", "a😀b", "xay", "a.c", "1a2", "ab%", "%ab", "ü_");

  private static boolean registered;

  private FuzzTables() {}

  public static synchronized void register(SparkSession spark) {
    if (registered) return;
    // small row groups, so pushed filters prune some; one table Snappy, one ZSTD (the device inflates both) in
    // page v2 with some integer columns off the dictionary (DELTA_BINARY_PACKED);
    // several files each, which the GPU scan reads into shared batches
    table(700, 11).parquetView(spark, LEFT, Map.of("compression", "snappy", "parquet.block.size", "8192"), 6);
    table(300, 12).parquetView(spark, RIGHT, Map.of("compression", "zstd", "parquet.block.size", "8192",
        "parquet.writer.version", "PARQUET_2_0", "parquet.enable.dictionary#id", "false",
        "parquet.enable.dictionary#k2", "false", "parquet.enable.dictionary#dt", "false",
        "parquet.enable.dictionary#dec18", "false"), 3);
    registered = true;
  }

  private static TableGen table(int rows, long seed) {
    return TableGen.rows(rows).seed(seed)
        .column("id", Gens.uniqueLongs())
        .column("k", new ColumnGen(DataTypes.IntegerType, List.of(),
            (r, row) -> r.nextInt(3) == 0 ? HOT_KEY : r.nextInt(20)).nulls(0.05))
        .column("k2", new ColumnGen(DataTypes.LongType, List.of(), (r, row) -> (long) (r.nextInt(11) - 5)).nulls(0.05))
        .column("v", new ColumnGen(DataTypes.IntegerType, List.of(-100, 0, 100), (r, row) -> r.nextInt(201) - 100)
            .nulls(0.1))
        .column("s", new ColumnGen(DataTypes.StringType, STRINGS, (r, row) -> STRINGS.get(r.nextInt(STRINGS.size())))
            .nulls(0.1))
        .column("d", Gens.doubles())
        .column("f", Gens.floats())
        .column("dec", Gens.decimals(7, 2))
        .column("dec18", Gens.decimals(18, 4))
        .column("dt", Gens.dates())
        .column("ts", Gens.timestamps())
        .column("b", Gens.booleans());
  }
}
