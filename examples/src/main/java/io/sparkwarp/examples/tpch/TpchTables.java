package io.sparkwarp.examples.tpch;

import static org.apache.spark.sql.functions.col;
import static org.apache.spark.sql.functions.date_from_unix_date;

import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The eight TPC-H tables from io.trino.tpch as snappy Parquet, with Spark types: long keys, int counts,
 * decimal(12,2) money and rates, date dates, string text. Generation runs inside Spark tasks, one generator part
 * per task, so large scale factors never sit in driver memory.
 */
public final class TpchTables {
  /** Money and rates (prices, discounts, taxes, balances) as TPC-H specifies them: exact, two decimals. */
  public static final DataType MONEY = DataTypes.createDecimalType(12, 2);

  /** lineitem rows per unit of scale factor, and how many of them one Spark task generates. */
  private static final double LINEITEM_ROWS_PER_SCALE = 6_000_000;
  private static final double ROWS_PER_TASK = 500_000;

  private TpchTables() {}

  /** The Spark schema of {@code table}; column names as TPC-H spells them (l_orderkey, ...). */
  public static StructType schema(TpchTable<?> table) {
    StructType schema = new StructType();
    for (TpchColumn<?> column : table.getColumns()) {
      schema = schema.add(column.getColumnName(), sparkType(column), false);
    }
    return schema;
  }

  private static DataType sparkType(TpchColumn<?> column) {
    return switch (column.getType().getBase()) {
      case IDENTIFIER -> DataTypes.LongType;
      case INTEGER -> DataTypes.IntegerType;
      case DATE -> DataTypes.DateType;
      case DOUBLE -> MONEY;
      case VARCHAR -> DataTypes.StringType;
    };
  }

  /** Parquet codecs the tables may be written in (Spark's names); Snappy is Spark's default. */
  public static final Set<String> CODECS = Set.of("snappy", "zstd", "lz4_raw", "gzip", "uncompressed");

  /** {@link #writeAndRegister(SparkSession, double, Path, String)} in Snappy. */
  public static boolean writeAndRegister(SparkSession spark, double scaleFactor, Path dir) {
    return writeAndRegister(spark, scaleFactor, dir, "snappy");
  }

  /**
   * Writes every table under {@code dir/<table>} at {@code scaleFactor} in Parquet compressed by {@code codec} (one
   * of {@link #CODECS}), unless a complete earlier write is there (each table's {@code _SUCCESS} marker), and
   * registers each as a temporary view named like the table.
   *
   * @return whether data was generated (false: reused)
   */
  public static boolean writeAndRegister(SparkSession spark, double scaleFactor, Path dir, String codec) {
    if (!CODECS.contains(codec)) throw new IllegalArgumentException("no Parquet codec " + codec + " of " + CODECS);
    boolean generate = !isComplete(dir);
    for (TpchTable<?> table : TpchTable.getTables()) {
      String path = dir.resolve(table.getTableName()).toString();
      if (generate) {
        generate(spark, table, scaleFactor).write().mode("overwrite").option("compression", codec).parquet(path);
      }
      spark.read().parquet(path).createOrReplaceTempView(table.getTableName());
    }
    return generate;
  }

  private static boolean isComplete(Path dir) {
    return TpchTable.getTables().stream()
        .allMatch(table -> Files.exists(dir.resolve(table.getTableName()).resolve("_SUCCESS")));
  }

  private static Dataset<Row> generate(SparkSession spark, TpchTable<?> table, double scale) {
    // small tables (nation, region) come whole from part 1 and empty from the others
    int parts = (int) Math.max(1, Math.ceil(scale * LINEITEM_ROWS_PER_SCALE / ROWS_PER_TASK));
    String name = table.getTableName();
    MapPartitionsFunction<Long, Row> rows = partIds -> {
      Iterable<Long> ids = () -> partIds;
      return StreamSupport.stream(ids.spliterator(), false)
          .flatMap(id -> rowsOf(TpchTable.getTable(name), scale, id.intValue() + 1, parts))
          .iterator();
    };
    return spark.range(0, parts, 1, parts).mapPartitions(rows, Encoders.row(generatedSchema(table)))
        .select(table.getColumns().stream().map(TpchTables::toSparkType).toArray(Column[]::new));
  }

  /**
   * The schema rows are generated in: dates as int days since the epoch, so the encoder never depends on
   * whether the session maps dates to java.sql.Date or LocalDate ({@code spark.sql.datetime.java8API.enabled}).
   */
  private static StructType generatedSchema(TpchTable<?> table) {
    return new StructType(Arrays.stream(schema(table).fields())
        .map(f -> DataTypes.DateType.equals(f.dataType())
            ? new StructField(f.name(), DataTypes.IntegerType, f.nullable(), f.metadata())
            : f)
        .toArray(StructField[]::new));
  }

  private static Column toSparkType(TpchColumn<?> column) {
    Column generated = col(column.getColumnName());
    return DataTypes.DateType.equals(sparkType(column))
        ? date_from_unix_date(generated).as(column.getColumnName())
        : generated;
  }

  /** Part {@code part} (1-based) of {@code partCount} of the table's rows, generated lazily. */
  private static <E extends TpchEntity> Stream<Row> rowsOf(TpchTable<E> table, double scale, int part, int partCount) {
    List<TpchColumn<E>> columns = table.getColumns();
    return StreamSupport.stream(table.createGenerator(scale, part, partCount).spliterator(), false)
        .map(entity -> RowFactory.create(columns.stream().map(column -> value(column, entity)).toArray()));
  }

  private static <E extends TpchEntity> Object value(TpchColumn<E> column, E entity) {
    return switch (column.getType().getBase()) {
      case IDENTIFIER -> column.getIdentifier(entity);
      case INTEGER -> column.getInteger(entity);
      case DATE -> column.getDate(entity);
      // the generator computes money as cents / 100.0: rounding to 2 places recovers the exact cents
      case DOUBLE -> BigDecimal.valueOf(column.getDouble(entity)).setScale(2, RoundingMode.HALF_UP);
      case VARCHAR -> column.getString(entity);
    };
  }
}
