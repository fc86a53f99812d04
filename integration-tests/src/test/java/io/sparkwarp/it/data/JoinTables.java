package io.sparkwarp.it.data;

import org.apache.spark.sql.SparkSession;

/**
 * The views of the join tests, registered once per JVM as Parquet: {@value #PROBE} ({@value #PROBE_ROWS} rows) and
 * {@value #BUILD} ({@value #BUILD_ROWS} rows), the same columns drawn from different seeds:
 *
 * <ul>
 *   <li>{@code id}: 0, 1, 2, ... (unique, never null): ids below {@value #BUILD_ROWS} are on both sides, the
 *       probe's others on one only;
 *   <li>{@code v}: int, for residual conditions;
 *   <li>a key of each type the GPU join takes: {@code k_int}, {@code k_long}, {@code k_date}, {@code k_ts},
 *       {@code k_dec12} (decimal(12,2)), {@code k_dec18} (decimal(18,4)), {@code k_str} (empty, blank and 2- to
 *       4-byte UTF-8 strings among them), {@code k_bin}: the generators' small domains and edge values, 10% nulls,
 *       so most keys match several rows of the other side and some match none;
 *   <li>{@code hot}: int, 7 in {@value #BUILD_HOT_SHARE} of the build rows (hundreds) and {@value #PROBE_HOT_SHARE}
 *       of the probe rows, the others spread over [0, 1000), a few null.
 * </ul>
 */
public final class JoinTables {
  public static final String PROBE = "join_probe";
  public static final String BUILD = "join_build";
  public static final int PROBE_ROWS = 600;
  public static final int BUILD_ROWS = 400;
  public static final int HOT_KEY = 7;
  public static final double BUILD_HOT_SHARE = 0.6;
  public static final double PROBE_HOT_SHARE = 0.05;
  /** The key columns, one per type. */
  public static final String[] KEYS = {"k_int", "k_long", "k_date", "k_ts", "k_dec12", "k_dec18", "k_str", "k_bin"};

  private static boolean registered;

  private JoinTables() {}

  public static synchronized void register(SparkSession spark) {
    if (registered) return;
    probe().parquetView(spark, PROBE);
    build().parquetView(spark, BUILD);
    registered = true;
  }

  static TableGen probe() {
    return table(PROBE_ROWS, 1, PROBE_HOT_SHARE);
  }

  static TableGen build() {
    return table(BUILD_ROWS, 2, BUILD_HOT_SHARE);
  }

  private static TableGen table(int rows, long seed, double hotShare) {
    return TableGen.rows(rows).seed(seed)
        .column("id", Gens.uniqueLongs())
        .column("v", Gens.ints())
        .column("k_int", Gens.ints())
        .column("k_long", Gens.longs())
        .column("k_date", Gens.dates())
        .column("k_ts", Gens.timestamps())
        .column("k_dec12", Gens.decimals(12, 2))
        .column("k_dec18", Gens.decimals(18, 4))
        .column("k_str", Gens.strings())
        .column("k_bin", Gens.binaries())
        .column("hot", Gens.skewedInts(HOT_KEY, hotShare));
  }
}
