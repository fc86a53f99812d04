package io.sparkwarp.kernels.join;

import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A built hash table on the device (hash_table.cuh), with its statistics. It refers to the build keys, which must
 * stay open while the table is used, and owns its buffers. Probes only read it, so joins may share it; which build
 * rows matched is each join's own bitmap.
 */
public final class HashTable implements AutoCloseable {
  private final TableKind kind;
  private final JoinKeys buildKeys;
  /** Unique: the slots; multi: the bucket entries. Both hold tagged rows (row id low, hash high 32 bits). */
  private final DeviceBuffer taggedRows;
  /** Multi: buckets + 1 int32 offsets into the entries; unique: null. */
  private final DeviceBuffer bucketOffsets;
  private final long buckets;
  private final long entries;
  private final long maxBucketLength;
  private final long nonEmptyBuckets;
  private final AtomicBoolean closed = new AtomicBoolean();

  HashTable(TableKind kind, JoinKeys buildKeys, DeviceBuffer taggedRows, DeviceBuffer bucketOffsets, long buckets,
      long entries, long maxBucketLength, long nonEmptyBuckets) {
    this.kind = kind;
    this.buildKeys = buildKeys;
    this.taggedRows = taggedRows;
    this.bucketOffsets = bucketOffsets;
    this.buckets = buckets;
    this.entries = entries;
    this.maxBucketLength = maxBucketLength;
    this.nonEmptyBuckets = nonEmptyBuckets;
  }

  public TableKind kind() {
    return kind;
  }

  public boolean isUnique() {
    return kind == TableKind.UNIQUE;
  }

  public JoinKeys buildKeys() {
    return buildKeys;
  }

  /** Rows of the build side (joinable or not). */
  public int rowCount() {
    return buildKeys.rowCount();
  }

  /** Slots (unique) or buckets (multi), a power of two. */
  public long bucketCount() {
    return buckets;
  }

  /** Build rows in the table: those whose keys can match. */
  public long entryCount() {
    return entries;
  }

  /** The most rows one bucket holds: the most candidates a probe row can have (1 for a unique table). */
  public long maxBucketLength() {
    return maxBucketLength;
  }

  /** Buckets holding at least one row. */
  public long nonEmptyBuckets() {
    return nonEmptyBuckets;
  }

  /** Average rows per non-empty bucket (0 for an empty table): with {@link #maxBucketLength} a measure of skew. */
  public double meanBucketLength() {
    return nonEmptyBuckets == 0 ? 0 : (double) entries / nonEmptyBuckets;
  }

  /** Unique: the slots; multi: the bucket entries; tagged rows as hash_table.cuh lays them out (for kernels). */
  public DeviceBuffer taggedRows() {
    return taggedRows;
  }

  /** Multi: the bucket offsets (buckets + 1 int32, for kernels); unique: null. */
  public DeviceBuffer bucketOffsets() {
    return bucketOffsets;
  }

  /** Device bytes of the table's buffers. */
  public long deviceBytes() {
    return taggedRows.size() + (bucketOffsets == null ? 0 : bucketOffsets.size());
  }

  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) return;
    taggedRows.close();
    if (bucketOffsets != null) bucketOffsets.close();
  }

  @Override
  public String toString() {
    return kind + " hash table of " + entries + " rows in " + buckets + " buckets (longest " + maxBucketLength
        + ", mean " + String.format(java.util.Locale.ROOT, "%.2f", meanBucketLength()) + ")";
  }
}
