package io.sparkwarp.examples;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.count;
import static org.apache.spark.sql.functions.lit;
import static org.apache.spark.sql.functions.sum;

import io.sparkwarp.examples.tpch.TpchTables;
import java.nio.file.Path;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;

/**
 * A job for spark-submit: the plugin comes from the command line ({@code --jars} and
 * {@code --conf spark.plugins=io.sparkwarp.WarpPlugin}), the job itself is plain Spark. It reads TPC-H lineitem
 * from Parquet (generating the tables first when the directory has none), filters on dates and a string, and
 * prints the executed plan and the answer.
 *
 * <p>Arguments: data directory (required), scale factor to generate when it is empty (0.1).
 */
public final class SubmitExample {
  private SubmitExample() {}

  public static void main(String[] args) {
    if (args.length < 1 || args.length > 2) {
      System.err.println("usage: SubmitExample DATA_DIR [scale-factor=0.1]");
      System.exit(2);
    }
    SparkSession spark = SparkSession.builder().appName("sparkwarp spark-submit example").getOrCreate();
    try {
      Path dir = Path.of(args[0]);
      TpchTables.writeAndRegister(spark, args.length > 1 ? Double.parseDouble(args[1]) : 0.1, dir);
      Dataset<Row> lineitem = spark.read().parquet(dir.resolve("lineitem").toString());
      Dataset<Row> answer = lineitem
          .where(col("l_shipdate").geq(lit(java.sql.Date.valueOf("1994-01-01")))
              .and(col("l_shipdate").lt(lit(java.sql.Date.valueOf("1995-01-01"))))
              .and(col("l_shipmode").equalTo("AIR")))
          .groupBy("l_returnflag")
          .agg(count(lit(1)).as("lines"), sum("l_extendedprice").as("value"))
          .orderBy("l_returnflag");
      // collected rather than shown, so the plan printed is the one that ran (show plans a query of its own)
      answer.collectAsList().forEach(System.out::println);
      System.out.println(answer.queryExecution().executedPlan().treeString());
    } finally {
      spark.stop();
    }
  }
}
