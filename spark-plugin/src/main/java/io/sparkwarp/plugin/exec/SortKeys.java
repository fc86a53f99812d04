package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.sort.SortKey;
import io.sparkwarp.plugin.types.SparkTypes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.NullsFirst$;
import org.apache.spark.sql.catalyst.expressions.SortOrder;
import org.apache.spark.sql.types.StringType;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Spark's sort orders as the device sort's keys ({@code DeviceSort}): every GPU operator that orders rows (sort,
 * top-N, range partitioning) checks and converts its orders here, so they accept the same keys.
 */
public final class SortKeys {
  private SortKeys() {}

  /** Why the device cannot order {@code input}'s rows by {@code sortOrder}; empty when it can. */
  public static Optional<String> whyNot(Seq<SortOrder> sortOrder, List<Attribute> input) {
    for (SortOrder order : CollectionConverters.asJava(sortOrder)) {
      if (InputColumns.indexOf(input, order.child()) < 0) {
        return Optional.of("sort key " + order.child().sql() + " is not a column of the input");
      }
      if (order.dataType() instanceof StringType s && !s.isUTF8BinaryCollation()) {
        return Optional.of("sort key " + order.child().sql() + " has collation " + s.collationName()
            + " (the GPU orders strings by their UTF-8 bytes)");
      }
      Optional<String> type = SparkTypes.whyNot(order.dataType());
      if (type.isPresent()) return Optional.of("sort key " + order.child().sql() + ": " + type.get());
    }
    return Optional.empty();
  }

  /** The device sort keys of {@code sortOrder} over {@code input}, whose columns they are ({@link #whyNot}). */
  static List<SortKey> of(Seq<SortOrder> sortOrder, List<Attribute> input) {
    List<SortKey> keys = new ArrayList<>();
    for (SortOrder order : CollectionConverters.asJava(sortOrder)) {
      int column = InputColumns.indexOf(input, order.child());
      if (column < 0) throw new IllegalArgumentException("sort key " + order.child() + " is not a column of the input");
      keys.add(new SortKey(column, order.isAscending(), order.nullOrdering() == NullsFirst$.MODULE$));
    }
    return keys;
  }
}
