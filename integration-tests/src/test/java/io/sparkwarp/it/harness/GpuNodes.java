package io.sparkwarp.it.harness;

/** Simple class names of the plugin's plan nodes, as tests expect them in executed plans. */
public final class GpuNodes {
  public static final String FILTER = "GpuFilterExec";
  public static final String PROJECT = "GpuProjectExec";
  /** Spark's Parquet scan on the GPU: compressed pages decompressed and decoded on the device. */
  public static final String PARQUET_SCAN = "GpuParquetScanExec";
  /** Rows or CPU columnar batches to device batches. */
  public static final String HOST_TO_GPU = "HostToGpuExec";
  /**
   * Where data comes onto the GPU, either node: a GPU Parquet scan, or an upload where the scan stays on the CPU
   * (row sources, formats or types the GPU scan leaves to Spark) or after a CPU exchange.
   */
  public static final String ONTO_GPU = HOST_TO_GPU + "|" + PARQUET_SCAN;
  /** Device batches to the Arrow batches Spark's ColumnarToRowExec reads. */
  public static final String GPU_TO_HOST = "GpuToHostExec";
  /** Spark's UnionExec: the inputs' device batches passed on. */
  public static final String UNION = "GpuUnionExec";
  public static final String COALESCE_BATCHES = "GpuCoalesceBatchesExec";
  /** Spark's ShuffledHashJoinExec and SortMergeJoinExec: both sides shuffled on the keys, one side hashed. */
  public static final String SHUFFLED_HASH_JOIN = "GpuShuffledHashJoinExec";
  public static final String SORT_MERGE_JOIN = "GpuSortMergeJoinExec";
  /** Spark's BroadcastHashJoinExec: the broadcast side hashed, the other side streamed through it. */
  public static final String BROADCAST_HASH_JOIN = "GpuBroadcastHashJoinExec";
  /** Spark's BroadcastExchangeExec over a GPU build side read only by GPU joins: broadcast as columnar slices. */
  public static final String BROADCAST_EXCHANGE = "GpuBroadcastExchangeExec";
  /** Spark's hash, object-hash and sort aggregates, in every mode. */
  public static final String HASH_AGGREGATE = "GpuHashAggregateExec";
  /** Spark's ShuffleExchangeExec over a GPU stage: partitioned on the host after one download, shuffled columnar. */
  public static final String SHUFFLE_EXCHANGE = "GpuShuffleExchangeExec";
  /** Each partition's top N on the GPU, under Spark's TakeOrderedAndProjectExec. */
  public static final String TOP_N = "GpuTopNExec";
  /** Spark's SortExec: each partition sorted on the GPU (a global sort's partitions come from a GPU range exchange). */
  public static final String SORT = "GpuSortExec";

  private GpuNodes() {}
}
