package io.sparkwarp.parquet;

import java.io.Serializable;
import java.util.Optional;
import org.apache.parquet.filter2.predicate.FilterPredicate;
import org.apache.parquet.schema.MessageType;

/**
 * The filter a scan's row groups are pruned by (with their statistics, dictionaries and bloom filters, as parquet-mr
 * does for Spark's reader), built per file because names and types resolve against that file's schema.
 */
@FunctionalInterface
public interface RowGroupPredicate extends Serializable {
  /** Reads every row group. */
  RowGroupPredicate NONE = schema -> Optional.empty();

  /** The predicate for a file of {@code schema}; empty when nothing can be pruned. */
  Optional<FilterPredicate> forFile(MessageType schema);
}
