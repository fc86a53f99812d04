package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.plugin.config.WarpConf;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.execution.metric.SQLMetrics;
import scala.jdk.javaapi.CollectionConverters;

/** The SQL metrics GPU operators show in the Spark UI, by name. */
public final class GpuMetrics {
  public static final String INPUT_ROWS = "numInputRows";
  public static final String OUTPUT_ROWS = "numOutputRows";
  public static final String OUTPUT_BATCHES = "numOutputBatches";
  public static final String GPU_TIME = "gpuTime";
  public static final String TRANSFER_BYTES = "transferBytes";
  public static final String SPILL_BYTES = "spillBytes";
  public static final String SORT_RUNS = "sortRuns";
  public static final String TRANSFER_TIME = "transferTime";
  public static final String GATHER_TIME = "gatherTime";
  public static final String READ_WAIT = "readWaitTime";
  public static final String DEVICE_WAIT = "deviceWaitTime";
  public static final String DECODE_TIME = "decodeTime";
  public static final String SKIPPED_ROW_GROUPS = "skippedRowGroups";
  public static final String SKIPPED_PAGES = "skippedPages";
  public static final String SPLIT_BATCHES = "splitBatches";
  public static final String RETRIES = "deviceMemoryRetries";
  public static final String MATCHES = "numMatches";
  public static final String NAIVE_PROBES = "naiveProbes";
  public static final String PUSH_DOWN_PROBES = "pushDownProbes";
  public static final String REFILL_PROBES = "refillProbes";
  public static final String MERGE_PARTITIONS = "mergePartitions";
  public static final String SPREAD_PARTITIONS = "spreadPartitions";
  public static final String LANE_UTILISATION = "laneUtilisation";
  public static final String PLAIN_STRING_MATCHES = "plainStringMatches";
  public static final String PIVOTED_STRING_MATCHES = "pivotedStringMatches";
  public static final String SELF_PIVOTED_STRING_MATCHES = "selfPivotedStringMatches";
  public static final String STRING_LANE_UTILISATION = "stringLaneUtilisation";

  private GpuMetrics() {}

  /** Row and batch counts: what every plugin operator reports. */
  private static Map<String, SQLMetric> counts(SparkContext sc) {
    Map<String, SQLMetric> m = new LinkedHashMap<>();
    m.put(OUTPUT_ROWS, SQLMetrics.createMetric(sc, "number of output rows"));
    m.put(OUTPUT_BATCHES, SQLMetrics.createMetric(sc, "number of output batches"));
    return m;
  }

  /** Row and batch counts and GPU time: what every GPU operator that computes reports. */
  static Map<String, SQLMetric> operator(SparkContext sc) {
    Map<String, SQLMetric> m = counts(sc);
    m.put(GPU_TIME, SQLMetrics.createNanoTimingMetric(sc, "GPU time", -1));
    return m;
  }

  /** What {@link DeviceRetry} did when device memory ran out: steps run again, and batches split. */
  static void retries(Map<String, SQLMetric> m, SparkContext sc) {
    m.put(RETRIES, SQLMetrics.createMetric(sc, "steps retried once other tasks freed device memory"));
    m.put(SPLIT_BATCHES, SQLMetrics.createMetric(sc, "batches split in halves for device memory"));
  }

  /**
   * What the transitions report: rows and batches moved, and the bytes and time of the copies between host and
   * device (the PCIe link on a GPU). The copy is their only device work, so they have no separate GPU time.
   */
  static Map<String, SQLMetric> transfer(SparkContext sc) {
    Map<String, SQLMetric> m = counts(sc);
    m.put(TRANSFER_BYTES, SQLMetrics.createSizeMetric(sc, "bytes over PCIe", -1));
    m.put(TRANSFER_TIME, SQLMetrics.createNanoTimingMetric(sc, "PCIe transfer time", -1));
    return m;
  }

  /** What an upload reports: the transfer metrics plus the time gathering its input into pinned memory. */
  static Map<String, SQLMetric> upload(SparkContext sc) {
    Map<String, SQLMetric> m = transfer(sc);
    m.put(GATHER_TIME, SQLMetrics.createNanoTimingMetric(sc, "time gathering rows (their producers' time included)",
        -1));
    retries(m, sc);
    return m;
  }

  /**
   * What a GPU scan reports: rows, batches, the time its task spent producing batches (reads it waited for,
   * decompression and decoding), and the compressed bytes it uploaded.
   */
  static Map<String, SQLMetric> scan(SparkContext sc) {
    Map<String, SQLMetric> m = counts(sc);
    m.put(GPU_TIME, SQLMetrics.createNanoTimingMetric(sc, "scan time", -1));
    m.put(TRANSFER_BYTES, SQLMetrics.createSizeMetric(sc, "compressed bytes uploaded", -1));
    // the scan time's parts: which of reading, admission and the device a slow scan waits for
    m.put(READ_WAIT, SQLMetrics.createNanoTimingMetric(sc, "scan time waiting for file reads", -1));
    m.put(DEVICE_WAIT, SQLMetrics.createNanoTimingMetric(sc, "scan time waiting for device admission", -1));
    m.put(DECODE_TIME, SQLMetrics.createNanoTimingMetric(sc, "scan time uploading and decoding", -1));
    m.put(SKIPPED_ROW_GROUPS, SQLMetrics.createMetric(sc, "row groups skipped by the pushed filters"));
    m.put(SKIPPED_PAGES, SQLMetrics.createMetric(sc, "data pages skipped by the column indexes"));
    m.put(SPLIT_BATCHES, SQLMetrics.createMetric(sc, "batches read in halves for device memory"));
    return m;
  }

  /**
   * The operator metrics plus what a hash join's probes did: matches, the variants chosen, lane utilisation; and for
   * a join of shuffled partitions, how many were merged.
   */
  static Map<String, SQLMetric> join(SparkContext sc, boolean shuffled) {
    Map<String, SQLMetric> m = retrying(sc);
    m.put(MATCHES, SQLMetrics.createMetric(sc, "pairs with equal keys"));
    // a broadcast's build, uploaded once per device; a shuffled join's build is already on the device
    m.put(TRANSFER_BYTES, SQLMetrics.createSizeMetric(sc, "build bytes uploaded", -1));
    m.put(NAIVE_PROBES, SQLMetrics.createMetric(sc, "batches probed naively"));
    m.put(PUSH_DOWN_PROBES, SQLMetrics.createMetric(sc, "batches probed with push-down"));
    m.put(REFILL_PROBES, SQLMetrics.createMetric(sc, "batches probed with lane refill"));
    if (shuffled) {
      m.put(MERGE_PARTITIONS, SQLMetrics.createMetric(sc, "partitions joined by merge path"));
      m.put(SPREAD_PARTITIONS, SQLMetrics.createMetric(sc, "partitions spread over devices"));
    }
    if (measuresLanes(sc)) {
      m.put(LANE_UTILISATION, SQLMetrics.createAverageMetric(sc, "lane utilisation (% of 32 lanes)"));
    }
    return m;
  }

  /** The operator metrics plus input rows: how far an aggregate reduced its input. */
  static Map<String, SQLMetric> aggregate(SparkContext sc) {
    Map<String, SQLMetric> m = retrying(sc);
    m.put(INPUT_ROWS, SQLMetrics.createMetric(sc, "input rows"));
    m.put(SPILL_BYTES, SQLMetrics.createSizeMetric(sc, "bytes spilled to host", -1));
    return m;
  }

  /** The operator metrics plus its {@link DeviceRetry} metrics. */
  static Map<String, SQLMetric> retrying(SparkContext sc) {
    Map<String, SQLMetric> m = operator(sc);
    retries(m, sc);
    return m;
  }

  /**
   * The operator metrics plus what a sort larger than its device budget spilled (bytes and sorted runs) and its
   * retries when the device had no room.
   */
  static Map<String, SQLMetric> sort(SparkContext sc) {
    Map<String, SQLMetric> m = retrying(sc);
    m.put(SPILL_BYTES, SQLMetrics.createSizeMetric(sc, "bytes spilled to host", -1));
    m.put(SORT_RUNS, SQLMetrics.createMetric(sc, "sorted runs spilled"));
    return m;
  }

  /**
   * The operator metrics plus input rows (a filter's selectivity) and what its string predicates did: the layouts
   * read and the lane utilisation.
   */
  static Map<String, SQLMetric> expression(SparkContext sc) {
    Map<String, SQLMetric> m = retrying(sc);
    m.put(INPUT_ROWS, SQLMetrics.createMetric(sc, "input rows"));
    m.put(PLAIN_STRING_MATCHES, SQLMetrics.createMetric(sc, "string predicates on plain strings (batches)"));
    m.put(PIVOTED_STRING_MATCHES, SQLMetrics.createMetric(sc, "string predicates on pivoted strings (batches)"));
    m.put(SELF_PIVOTED_STRING_MATCHES,
        SQLMetrics.createMetric(sc, "string predicates on self-pivoted strings (batches)"));
    if (measuresLanes(sc)) {
      m.put(STRING_LANE_UTILISATION,
          SQLMetrics.createAverageMetric(sc, "string matching lane utilisation (% of 32 lanes)"));
    }
    return m;
  }

  /**
   * Whether the backend has lanes to measure: the host backend has none, and a lane utilisation metric there would
   * show the UI's 0 for a figure that was never taken.
   */
  private static boolean measuresLanes(SparkContext sc) {
    return WarpConf.of(sc.conf()).get(WarpConf.BACKEND) != BackendKind.HOST;
  }

  /** {@code step}'s result, its wall time added to {@code time} (returning or throwing). */
  static <T> T timed(SQLMetric time, Supplier<T> step) {
    long start = System.nanoTime();
    try {
      return step.get();
    } finally {
      time.add(System.nanoTime() - start);
    }
  }

  /** Runs {@code step}, adding its wall time to {@code time}. */
  static void timedStep(SQLMetric time, Runnable step) {
    timed(time, () -> {
      step.run();
      return null;
    });
  }

  static scala.collection.immutable.Map<String, SQLMetric> toScala(Map<String, SQLMetric> metrics) {
    return scala.collection.immutable.Map$.MODULE$.from(CollectionConverters.asScala(metrics));
  }
}
