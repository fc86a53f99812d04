package io.sparkwarp.parquet;

import java.io.Serializable;

/**
 * A byte range of one file, as Spark's file partitions cut them: the scan reads the row groups whose midpoint lies
 * inside (parquet-mr's rule, the one Spark's reader uses), so every row group is read by exactly one split.
 */
public record FileSplit(String path, long start, long length) implements Serializable {}
