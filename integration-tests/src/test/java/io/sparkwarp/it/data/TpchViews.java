package io.sparkwarp.it.data;

import io.sparkwarp.examples.tpch.TpchTables;
import io.sparkwarp.it.harness.SharedSpark;
import org.apache.spark.sql.SparkSession;

/** The TPC-H tables at scale factor {@value #SCALE_FACTOR} as snappy Parquet views, written once per JVM. */
public final class TpchViews {
  /** About 60,000 lineitem rows: several batches, seconds to generate. */
  public static final double SCALE_FACTOR = 0.01;

  private static boolean registered;

  private TpchViews() {}

  public static synchronized void register(SparkSession spark) {
    if (registered) return;
    TpchTables.writeAndRegister(spark, SCALE_FACTOR, SharedSpark.scratchDir().resolve("tpch"));
    registered = true;
  }
}
