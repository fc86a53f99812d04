package io.sparkwarp.plugin.rewrite;

import io.sparkwarp.parquet.ListedFile;
import io.sparkwarp.parquet.RowGroupPredicate;
import io.sparkwarp.parquet.ScanColumn;
import io.sparkwarp.parquet.ScanSettings;
import io.sparkwarp.parquet.ScanSupport;
import io.sparkwarp.plugin.config.WarpConf;
import io.sparkwarp.plugin.exec.GpuParquetScanExec;
import io.sparkwarp.plugin.exec.PushedParquetFilters;
import io.sparkwarp.plugin.types.SparkTypes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.execution.ExecSubqueryExpression;
import org.apache.spark.sql.execution.FileSourceScanExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.DataSourceStrategy$;
import org.apache.spark.sql.execution.datasources.DataSourceUtils$;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFileFormat;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.sources.Filter;
import org.apache.spark.sql.types.StructField;
import scala.jdk.javaapi.CollectionConverters;

/**
 * FileSourceScanExec over Parquet: on the GPU when every file's needed columns have types, codecs and encodings the
 * device decodes (their footers are read here, on the driver), and the scan asks for nothing the device scan does
 * not do (metadata columns, buckets, skipping corrupt or missing files, calendar rebasing). Partition columns (of
 * types the device holds, which tagging checks on the output) are appended as constants.
 */
final class ParquetScanMeta extends ExecMeta {
  private final FileSourceScanExec scan;
  private List<ScanColumn> columns;
  /** Codecs of the scan's files that its reader threads decompress, said in explain. */
  private Set<CompressionCodecName> hostDecompressed;

  ParquetScanMeta(FileSourceScanExec scan, RewriteContext context, Overrides.ExecRule rule) {
    super(scan, context, rule);
    this.scan = scan;
  }

  @Override
  protected void tagSelf() {
    try {
      whyNot().ifPresent(this::willNotWorkOnGpu);
    } catch (RuntimeException e) {  // planning must never fail a query: the CPU reader takes it
      willNotWorkOnGpu("the parquet files could not be checked (" + e + ")");
    }
  }

  private Optional<String> whyNot() {
    HadoopFsRelation relation = scan.relation();
    if (relation.fileFormat().getClass() != ParquetFileFormat.class) {
      return Optional.of("only parquet files are read on the GPU, not " + relation.fileFormat());
    }
    if (scan.bucketedScan()) return Optional.of("bucketed scans are not read on the GPU");
    StructField[] fields = scan.requiredSchema().fields();
    // after the data columns the output holds partition columns, then metadata columns
    for (int i = fields.length; i < scan.output().size(); i++) {
      String name = scan.output().apply(i).name();
      if (!Arrays.asList(relation.partitionSchema().fieldNames()).contains(name)) {
        return Optional.of("metadata column " + name + " is not read on the GPU");
      }
    }
    SQLConf sql = SQLConf.get();
    for (String key : List.of("spark.sql.files.ignoreCorruptFiles", "spark.sql.files.ignoreMissingFiles")) {
      String option = key.substring(key.lastIndexOf('.') + 1);
      if (Boolean.parseBoolean(sql.getConfString(key, "false"))
          || Boolean.parseBoolean(relation.options().getOrElse(option, () -> "false"))) {
        return Optional.of(key + "=true is not supported by the GPU scan");
      }
    }
    if (Boolean.parseBoolean(sql.getConfString("spark.sql.parquet.fieldId.read.enabled", "false"))) {
      return Optional.of("matching columns by parquet field id is not supported by the GPU scan");
    }
    String timeZone = sql.sessionLocalTimeZone();
    List<ScanColumn> wanted = new ArrayList<>();
    for (StructField f : fields) {
      var type = SparkTypes.deviceType(f.dataType(), timeZone);
      if (type.isEmpty()) return Optional.of("column " + f.name() + " has type " + f.dataType().simpleString());
      wanted.add(new ScanColumn(f.name(), type.get()));
    }
    // a file split in several parts is one file to check
    List<ListedFile> files = Arrays.stream(scan.selectedPartitions().toPartitionArray())
        .map(p -> new ListedFile(p.filePath().toPath(), p.fileSize(), p.modificationTime())).distinct().toList();
    if (Boolean.parseBoolean(sql.getConfString("spark.sql.parquet.int96TimestampConversion", "false"))) {
      return Optional.of("spark.sql.parquet.int96TimestampConversion=true is not supported by the GPU scan");
    }
    Supplier<Configuration> hadoopConf =
        () -> relation.sparkSession().sessionState().newHadoopConfWithOptions(relation.options());
    ScanSupport.Verdict verdict = ScanSupport.check(hadoopConf, files, wanted, sql.caseSensitiveAnalysis(),
        corrected(relation, "datetimeRebaseMode", "spark.sql.parquet.datetimeRebaseModeInRead"),
        corrected(relation, "int96RebaseMode", "spark.sql.parquet.int96RebaseModeInRead"),
        Boolean.parseBoolean(sql.getConfString("spark.sql.legacy.parquet.nanosAsLong", "false")), deviceCodecs(),
        hostCodecs());
    if (verdict.whyNot().isEmpty()) {
      columns = wanted;
      hostDecompressed = verdict.hostDecompressed();
    }
    return verdict.whyNot();
  }

  @Override
  protected SparkPlan convertToGpu(List<SparkPlan> gpuChildren) {
    WarpConf conf = context.conf();
    RowGroupPredicate rowGroups = PushedParquetFilters.of(pushedFilters(), SQLConf.get());
    return new GpuParquetScanExec(scan, columns, new ScanSettings(conf.get(WarpConf.PARQUET_BATCH_BYTES),
        conf.get(WarpConf.PARQUET_READER_THREADS), SQLConf.get().caseSensitiveAnalysis(), rowGroups, deviceCodecs(),
        hostCodecs()), hostDecompressed);
  }

  /**
   * The scan's filters for row-group pruning: Spark's pushed filters, which put the values of scalar subqueries in
   * (TPC-H Q22's {@code c_acctbal > (SELECT avg(..))}); while a subquery has not run, which is the case when plans
   * are rewritten, the filters without subqueries (the Filter above the scan still applies them all).
   */
  private List<Filter> pushedFilters() {
    List<Expression> filters = CollectionConverters.asJava(scan.dataFilters());
    if (filters.stream().noneMatch(ParquetScanMeta::hasSubquery)) {
      return CollectionConverters.asJava(scan.pushedDownFilters());
    }
    boolean nested = DataSourceUtils$.MODULE$.supportNestedPredicatePushdown(scan.relation());
    List<Filter> pushed = new ArrayList<>();
    for (Expression f : filters) {
      if (!hasSubquery(f)) DataSourceStrategy$.MODULE$.translateFilter(f, nested).foreach(pushed::add);
    }
    return pushed;
  }

  private static boolean hasSubquery(Expression e) {
    return e instanceof ExecSubqueryExpression
        || CollectionConverters.asJava(e.children()).stream().anyMatch(ParquetScanMeta::hasSubquery);
  }

  /** Whether the scan's option, else the session's setting, reads values as written (rebase mode CORRECTED). */
  private static boolean corrected(HadoopFsRelation relation, String option, String setting) {
    String mode = relation.options().getOrElse(option, () -> SQLConf.get().getConfString(setting, "EXCEPTION"));
    return mode.toUpperCase(Locale.ROOT).equals("CORRECTED");
  }

  private Set<CompressionCodecName> deviceCodecs() {
    return context.conf().get(WarpConf.PARQUET_DEVICE_CODECS);
  }

  private Set<CompressionCodecName> hostCodecs() {
    return context.conf().get(WarpConf.PARQUET_HOST_CODECS);
  }
}
