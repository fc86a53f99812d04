package io.sparkwarp.parquet;

import java.io.Serializable;

/**
 * How a scan reads.
 *
 * @param batchBytes uncompressed bytes of the needed column chunks gathered into one batch (a larger row group makes
 *     a batch of its own)
 * @param readerThreads threads of an executor that read column chunks (the first scan of the JVM sizes the pool)
 * @param caseSensitive whether column names match the file's exactly (spark.sql.caseSensitive)
 * @param rowGroups what row groups are pruned by ({@link RowGroupPredicate#NONE}: none)
 */
public record ScanSettings(long batchBytes, int readerThreads, boolean caseSensitive, RowGroupPredicate rowGroups)
    implements Serializable {}
