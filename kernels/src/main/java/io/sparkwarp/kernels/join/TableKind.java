package io.sparkwarp.kernels.join;

/** The layouts of a {@link HashTable} (hash_table.cuh). */
public enum TableKind {
  /** Open addressing with linear probing: every key once, so a probe row has at most one match. */
  UNIQUE,
  /** Buckets of contiguous build rows (count, scan, scatter): any number of rows per key. */
  MULTI
}
