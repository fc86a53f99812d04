package io.sparkwarp.it.data;

import io.sparkwarp.it.harness.SharedSpark;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.StructType;

/**
 * A table of generated columns, built fluently and registered as a temporary view:
 *
 * <pre>{@code
 * TableGen.rows(1000).seed(7).column("id", Gens.uniqueLongs()).column("s", Gens.strings()).parquetView(spark, "t");
 * }</pre>
 *
 * Each column draws from its own random source, seeded by the table's seed and the column's name, so adding a
 * column leaves the others' values alone.
 */
public final class TableGen {
  /** Partitions of a row view: more than one, so the GPU sees several inputs. */
  private static final int PARTITIONS = 2;

  private final int rows;
  private final Map<String, ColumnGen> columns = new LinkedHashMap<>();
  private long seed = 42;

  private TableGen(int rows) {
    this.rows = rows;
  }

  public static TableGen rows(int count) {
    if (count < 0) throw new IllegalArgumentException("row count must not be negative: " + count);
    return new TableGen(count);
  }

  public TableGen seed(long value) {
    seed = value;
    return this;
  }

  public TableGen column(String name, ColumnGen gen) {
    if (columns.putIfAbsent(name, gen) != null) throw new IllegalArgumentException("column " + name + " twice");
    return this;
  }

  public StructType schema() {
    StructType schema = new StructType();
    for (Map.Entry<String, ColumnGen> column : columns.entrySet()) {
      schema = schema.add(column.getKey(), column.getValue().type(), true);
    }
    return schema;
  }

  /** The rows, the same for the same seed and columns. */
  public List<Row> generate() {
    List<Object[]> values = new ArrayList<>(rows);
    for (int row = 0; row < rows; row++) values.add(new Object[columns.size()]);
    int index = 0;
    for (Map.Entry<String, ColumnGen> column : columns.entrySet()) {
      Random random = new Random(seed * 1_000_003L + column.getKey().hashCode());
      for (int row = 0; row < rows; row++) values.get(row)[index] = column.getValue().next(random, row);
      index++;
    }
    return values.stream().map(RowFactory::create).toList();
  }

  /**
   * Written as snappy Parquet (a file per local core) in the JVM's scratch directory: Spark scans it in columnar
   * batches. Read back with the generated schema, which an empty table's files cannot supply.
   */
  public Dataset<Row> parquetView(SparkSession spark, String name) {
    return parquetView(spark, name, Map.of("compression", "snappy"));
  }

  /** Like {@link #parquetView(SparkSession, String)}, written with these writer options (codec, parquet-mr's own). */
  public Dataset<Row> parquetView(SparkSession spark, String name, Map<String, String> options) {
    return parquetView(spark, name, options, 0);
  }

  /**
   * Like {@link #parquetView(SparkSession, String, Map)}, the rows spread round-robin over {@code files} files (0:
   * as Spark writes a local table).
   */
  public Dataset<Row> parquetView(SparkSession spark, String name, Map<String, String> options, int files) {
    String path = SharedSpark.scratchDir().resolve("tables").resolve(name).toString();
    Dataset<Row> rows = spark.createDataFrame(generate(), schema());
    (files > 0 ? rows.repartition(files) : rows).write().mode("overwrite").options(options).parquet(path);
    Dataset<Row> table = spark.read().schema(schema()).parquet(path);
    table.createOrReplaceTempView(name);
    return table;
  }

  /** An RDD of rows: Spark scans it row by row, so the GPU gets rows to upload rather than columnar batches. */
  public Dataset<Row> rowView(SparkSession spark, String name) {
    JavaSparkContext context = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Dataset<Row> table = spark.createDataFrame(context.parallelize(generate(), PARTITIONS), schema());
    table.createOrReplaceTempView(name);
    return table;
  }
}
