package io.sparkwarp.plugin.exec;

import io.sparkwarp.parquet.RowGroupPredicate;
import java.util.List;
import java.util.Optional;
import org.apache.parquet.filter2.predicate.FilterApi;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.schema.MessageType;
import org.apache.spark.sql.catalyst.util.RebaseDateTime;
import org.apache.spark.sql.execution.datasources.parquet.ParquetFilters;
import org.apache.spark.sql.internal.LegacyBehaviorPolicy;
import org.apache.spark.sql.internal.SQLConf;
import org.apache.spark.sql.sources.Filter;
import scala.Option;

/**
 * The filters Spark pushed into a Parquet scan, turned into parquet-mr predicates per file exactly as Spark's own
 * reader does it ({@link ParquetFilters} with the session's push-down settings), so the GPU scan skips the row
 * groups Spark's reader skips. Dates and timestamps are compared as written: the GPU scan only reads files that need
 * no calendar rebasing.
 */
public record PushedParquetFilters(List<Filter> filters, boolean date, boolean timestamp, boolean decimal,
    boolean stringPredicate, int inThreshold, boolean caseSensitive) implements RowGroupPredicate {

  /** The scan's pushed filters under the session's settings; none when push-down is off. */
  public static RowGroupPredicate of(List<Filter> pushed, SQLConf conf) {
    if (!conf.parquetFilterPushDown() || pushed.isEmpty()) return RowGroupPredicate.NONE;
    return new PushedParquetFilters(List.copyOf(pushed), conf.parquetFilterPushDownDate(),
        conf.parquetFilterPushDownTimestamp(), conf.parquetFilterPushDownDecimal(),
        conf.parquetFilterPushDownStringPredicate(), conf.parquetFilterPushDownInFilterThreshold(),
        conf.caseSensitiveAnalysis());
  }

  @Override
  public Optional<FilterPredicate> forFile(MessageType schema) {
    ParquetFilters converter = new ParquetFilters(schema, date, timestamp, decimal, stringPredicate, inThreshold,
        caseSensitive, new RebaseDateTime.RebaseSpec(LegacyBehaviorPolicy.CORRECTED(), Option.empty()));
    return filters.stream().map(f -> converter.createFilter(f)).filter(Option::isDefined).map(Option::get)
        .reduce(FilterApi::and);
  }
}
