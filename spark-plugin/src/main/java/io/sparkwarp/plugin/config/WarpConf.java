package io.sparkwarp.plugin.config;

import static io.sparkwarp.plugin.config.ConfEntry.Scope.SESSION;
import static io.sparkwarp.plugin.config.ConfEntry.Scope.STATIC;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.parquet.DeviceCodecs;
import io.sparkwarp.parquet.HostCodecs;
import io.sparkwarp.plugin.expr.ExpressionSettings;
import io.sparkwarp.plugin.rewrite.ExplainMode;
import io.sparkwarp.plugin.rewrite.Overrides;
import io.sparkwarp.strings.LayoutMode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.spark.SparkConf;
import org.apache.spark.sql.internal.SQLConf;

/**
 * Every {@code spark.warp.*} setting, defined once: typed entries with defaults and docs, the per-operator and
 * per-expression-family switches derived from the registries, validation, and the source of docs/CONFIG.md.
 */
public final class WarpConf {
  public static final String PREFIX = "spark.warp.";

  public static final ConfEntry<Boolean> ENABLED = ConfEntry.bool(PREFIX + "enabled", true, SESSION,
      "Whether queries are rewritten to run on the GPU. Set to false to run a query exactly as Spark would.");
  public static final ConfEntry<BackendKind> BACKEND = ConfEntry.oneOf(PREFIX + "backend", BackendKind.class,
      BackendKind.AUTO, STATIC,
      "What runs the device work: CUDA on an NVIDIA GPU, or HOST, the Java reference implementations (for testing "
          + "without a GPU). AUTO uses CUDA when a usable GPU is present; without one it logs a warning and leaves "
          + "every plan as Spark made it.");
  public static final ConfEntry<ExplainMode> EXPLAIN = ConfEntry.oneOf(PREFIX + "explain", ExplainMode.class,
      ExplainMode.NOT_ON_GPU, SESSION,
      "What the rewrite logs per query: NONE; NOT_ON_GPU, every operator kept on the CPU and why; ALL, the whole "
          + "plan with '*' on GPU operators and '!' on CPU ones.");
  public static final ConfEntry<Integer> CONCURRENT_GPU_TASKS = ConfEntry.nonNegativeInt(PREFIX
      + "concurrentGpuTasks", 0, STATIC, "The most tasks of one executor that do device work at the same time; 0 "
      + "leaves it to device memory (spark.warp.memory.taskReserve). Tasks doing host work are not counted.");
  public static final ConfEntry<Integer> DEVICES = ConfEntry.nonNegativeInt(PREFIX + "devices", 0, STATIC,
      "GPUs one executor uses, its tasks placed on the one with the fewest running tasks: 0 means all Spark "
          + "assigned to the executor (spark.executor.resource.gpu.amount), or the first usable visible GPU when "
          + "Spark assigns none (local mode: two H200s ran TPC-H's Q9 and Q18 as fast as one, not faster, "
          + "docs/PERFORMANCE.md); n means at most n of those, or of the visible GPUs in local mode. With "
          + "spark.warp.backend=host, n simulated devices (each with its own memory limit), so multi-device runs are "
          + "tested without a GPU.");
  public static final ConfEntry<Long> TASK_DEVICE_RESERVE = ConfEntry.bytes(PREFIX + "memory.taskReserve", 2L << 30,
      STATIC, "Device memory counted for each task doing device work until it holds more: a task starts its device "
          + "work only when its reserve fits beside what the running tasks hold or reserve.");
  public static final ConfEntry<Integer> BATCH_ROWS = ConfEntry.positiveInt(PREFIX + "batch.targetRows", 1 << 21,
      SESSION, "Rows gathered into one device batch before it is uploaded (at most).");
  public static final ConfEntry<Long> BATCH_BYTES = ConfEntry.bytes(PREFIX + "batch.targetBytes", 256L << 20,
      SESSION, "Bytes gathered into one device batch before it is uploaded (about, at most).");
  public static final ConfEntry<Long> AGGREGATE_STATE_BYTES = ConfEntry.bytes(PREFIX + "aggregate.stateBytes",
      512L << 20, SESSION, "Device bytes of aggregation buffers one task keeps per aggregate: past half of it they "
          + "are merged; what merging leaves above it goes on to the shuffle early (partial aggregates) or is split "
          + "by key into buckets in host memory that are finished one at a time (final aggregates), so the groups "
          + "need not fit the device at once. At most half of spark.warp.memory.taskReserve.");
  public static final ConfEntry<Long> SORT_RUN_BYTES = ConfEntry.bytes(PREFIX + "sort.runBytes", 512L << 20,
      SESSION, "Device bytes of input one task's sort takes at once: a partition within it is sorted whole, into one "
          + "batch; a larger one is sorted in runs of this size that move to host memory and are then merged on the "
          + "device a piece of each run at a time, so a partition need not fit the device. At most a quarter of "
          + "spark.warp.memory.taskReserve (a sort holds its input, the sorted copy and their concatenation).");
  public static final ConfEntry<Long> DEVICE_MEMORY_LIMIT = ConfEntry.bytes(PREFIX + "memory.deviceLimit", 0,
      STATIC, "Device memory an executor's queries may hold at once; 0 means 90% of the GPU's memory.");
  public static final ConfEntry<Long> PINNED_MEMORY_LIMIT = ConfEntry.bytes(PREFIX + "memory.pinnedLimit", 0,
      STATIC, "Pinned host memory an executor keeps for transfers; 0 means no limit.");

  public static final ConfEntry<LayoutMode> STRING_LAYOUT = ConfEntry.oneOf(PREFIX + "strings.layout",
      LayoutMode.class, LayoutMode.AUTO, SESSION,
      "The layout string predicates read a batch's strings in: AUTO picks per batch from the average string length "
          + "(docs/PERFORMANCE.md, String layouts); PLAIN (Arrow's own), PIVOTED (32 strings interleaved in 8-byte "
          + "pieces) and SELF_PIVOTED (a long string split over a warp) force one, for measurement.");
  public static final ConfEntry<JoinAlgorithm> JOIN_ALGORITHM = ConfEntry.oneOf(PREFIX + "join.algorithm",
      JoinAlgorithm.class, JoinAlgorithm.AUTO, SESSION,
      "How shuffled equi-joins (sort-merge and shuffled hash) run on the GPU: HASH builds a hash table of one side "
          + "per partition; MERGEPATH (mergePath) sorts both sides together on the device and expands the matches by "
          + "merge path (GpuSortMergeJoinExec), needing both sides of a partition in device memory; AUTO plans the "
          + "hash join and merges each partition whose keys are fixed-width, whose stream side fits "
          + "spark.warp.join.autoMergeBytes and holds at most 4 rows per build row, and whose build keys repeat "
          + "(unique ones are hashed: docs/PERFORMANCE.md, \"Merge join against hash join\"). Broadcast joins are "
          + "always hash joins.");
  public static final ConfEntry<Long> AUTO_MERGE_BYTES = ConfEntry.bytes(PREFIX + "join.autoMergeBytes", 1L << 30,
      SESSION, "Under spark.warp.join.algorithm=AUTO, the most device memory a partition's stream side may take for "
          + "the partition to switch to the merge join, which holds that side whole (the hash join streams it).");
  public static final ConfEntry<Long> JOIN_SPREAD_BYTES = ConfEntry.bytes(PREFIX + "join.spreadBytes", 16L << 30,
      SESSION, "With several devices in an executor (spark.warp.devices), a shuffled hash join partition whose build "
          + "side holds at least this much device memory runs over all of them: both sides split by key hash, each "
          + "device reading its part's rows from the others across the link (NVLink where present) and joining them, "
          + "the output brought back; only where the devices read each other's memory (CUDA peer access), else the "
          + "partition joins on its task's device. The memory it takes on the other devices is charged to the task, "
          + "which is admitted there as on its own device when it fits within a second (else it goes on: waiting "
          + "longer could deadlock two tasks spreading each way). The default, 16 GiB, is about a quarter of an 80 GB GPU's memory limit: "
          + "with its hash table and the probe's output, such a build already fills much of one device. 0 spreads "
          + "every partition (for tests).");
  public static final ConfEntry<Boolean> SHUFFLE_DEVICE_STORE = ConfEntry.bool(PREFIX + "shuffle.deviceStore", true,
      SESSION, "Whether a GPU stage's shuffle output stays in device memory for the stages that read it, when the "
          + "executor is the driver (local mode) with one GPU, or several that read each other's memory (CUDA peer "
          + "access: a task on another GPU reads the output over NVLink or PCIe): no download, serialisation, file "
          + "or upload; Spark's scheduler still gets each map task's real partition sizes. A map task whose output "
          + "does not fit spark.warp.shuffle.deviceStoreBytes goes through Spark's shuffle, as every GPU shuffle "
          + "does in a cluster. Output is freed when Spark drops its shuffle, or once its query has ended and newer "
          + "output needs the room.");
  public static final ConfEntry<Long> SHUFFLE_DEVICE_STORE_BYTES = ConfEntry.bytes(PREFIX
      + "shuffle.deviceStoreBytes", 0, SESSION, "Device memory shuffle output kept on the device may take in all "
          + "(spark.warp.shuffle.deviceStore); 0 means a quarter of spark.warp.memory.deviceLimit a device.");
  public static final ConfEntry<Boolean> STRING_REFILL = ConfEntry.bool(PREFIX + "strings.refill", true, SESSION,
      "Whether a lane whose string is decided takes the next row of its warp (Lane Refill) in string predicates.");

  public static final ConfEntry<Set<String>> TEST_FAIL_TAGGING = ConfEntry.names(PREFIX + "test.failTagging",
      SESSION, "For tests only: Spark operator names (comma-separated) whose tagging throws, to check that such an "
          + "internal error keeps the operator on the CPU and the query runs.");
  public static final ConfEntry<Set<String>> TEST_FAIL_CONVERSION = ConfEntry.names(PREFIX + "test.failConversion",
      SESSION, "For tests only: Spark operator names (comma-separated) whose GPU version throws while it is built, "
          + "after tagging let it run on the GPU, to check that such an internal error keeps the operator on the CPU "
          + "and the query runs.");
  public static final ConfEntry<Set<String>> TEST_FAIL_TASK_SETUP = ConfEntry.names(PREFIX + "test.failTaskSetup",
      SESSION, "For tests only: GPU operator names (comma-separated) whose per-partition setup throws, to check "
          + "that the partition then runs on the CPU.");
  public static final ConfEntry<Map<String, FaultInjection.AllocationFault>> TEST_FAIL_DEVICE_ALLOCATIONS =
      new ConfEntry<>(PREFIX + "test.failDeviceAllocations", "a comma-separated list of operator:bytes[:times]", "",
          "For tests only: GPU operator names, each with a size, whose device allocations above that size fail as "
              + "if the device were full (the first times of them in each partition, or all), to check that the "
              + "operator retries, splits its batches, or fails with a clear error; the name "
              + FaultInjection.BROADCAST_BUILD + " stands for the making of broadcast joins' device builds.", SESSION,
          FaultInjection::parseAllocationFaults);
  public static final ConfEntry<Long> PARQUET_BATCH_BYTES = ConfEntry.bytes(PREFIX + "parquet.batchBytes", 256L << 20,
      SESSION, "Uncompressed bytes of the needed column chunks the GPU Parquet scan decodes into one device batch "
          + "(whole row groups: a larger row group makes a batch of its own).");
  public static final ConfEntry<Set<CompressionCodecName>> PARQUET_DEVICE_CODECS = new ConfEntry<>(PREFIX
      + "parquet.deviceCodecs", "a comma-separated list of " + DeviceCodecs.SUPPORTED + " (or empty)",
      "SNAPPY,LZ4_RAW,LZ4,ZSTD", "Codecs whose pages the GPU Parquet scan uploads as stored and decompresses on "
          + "the device, a warp per page or per 64 KiB Snappy fragment (LZ4 in the Hadoop framing parquet-mr writes; "
          + "ZSTD frames a warp each: the full lineitem scan at SF10 ran 949 ms so against 1,120 ms inflated by the "
          + "reader threads, docs/PERFORMANCE.md). Uncompressed pages are always copied there; a codec left out is "
          + "decompressed by the reader threads when spark.warp.parquet.hostCodecs names it.", SESSION,
      DeviceCodecs::parse);
  public static final ConfEntry<Set<CompressionCodecName>> PARQUET_HOST_CODECS = new ConfEntry<>(PREFIX
      + "parquet.hostCodecs", "a comma-separated list of " + HostCodecs.SUPPORTED + " (or empty)",
      "GZIP,ZSTD,LZ4,LZ4_RAW", "Codecs the GPU Parquet scan decompresses on its CPU reader threads (with "
          + "parquet-mr's decompressors, as Spark's reader) before one upload of the inflated pages, unless "
          + "spark.warp.parquet.deviceCodecs names them; the device decodes the pages. Files of a codec in neither "
          + "stay on Spark's reader.", SESSION, HostCodecs::parse);
  public static final ConfEntry<Integer> PARQUET_READER_THREADS = ConfEntry.positiveInt(PREFIX
      + "parquet.readerThreads", 8, STATIC, "Threads of an executor that read Parquet column chunks into pinned "
          + "memory for the GPU scan (shared by its tasks; the next batch is read while the current one decodes).");

  private static final List<ConfEntry<?>> ENTRIES = buildEntries();

  private final Function<String, String> lookup;

  private WarpConf(Function<String, String> lookup) {
    this.lookup = lookup;
  }

  /** Settings as a session sees them (session values over application values). */
  public static WarpConf of(SQLConf conf) {
    return new WarpConf(key -> conf.getConfString(key, null));
  }

  /** Settings of the application, as the driver and executors start with them. */
  public static WarpConf of(SparkConf conf) {
    return new WarpConf(key -> conf.get(key, null));
  }

  /** Settings from a plain map (tests, and anything that is not Spark). */
  public static WarpConf of(Map<String, String> settings) {
    return new WarpConf(settings::get);
  }

  public <T> T get(ConfEntry<T> entry) {
    return entry.parse(lookup.apply(entry.key()));
  }

  /** Key of the switch of a GPU operator, named after the Spark operator it replaces ("FilterExec"). */
  public static String execKey(String sparkExecName) {
    return PREFIX + "exec." + sparkExecName + ".enabled";
  }

  /** Key of the switch of an expression family (ExpressionSettings.FAMILIES). */
  public static String exprKey(String family) {
    return ExpressionSettings.enabledKey(family);
  }

  public boolean execEnabled(String sparkExecName) {
    return switchOn(execKey(sparkExecName));
  }

  public boolean exprFamilyEnabled(String family) {
    return switchOn(exprKey(family));
  }

  private boolean switchOn(String key) {
    return ConfEntry.bool(key, true, SESSION, "").parse(lookup.apply(key));
  }

  /** Every entry: the fixed ones, then one switch per GPU operator and per expression family. */
  public static List<ConfEntry<?>> entries() {
    return ENTRIES;
  }

  private static List<ConfEntry<?>> buildEntries() {
    List<ConfEntry<?>> entries = new ArrayList<>(List.of(ENABLED, BACKEND, EXPLAIN, CONCURRENT_GPU_TASKS,
        DEVICES, TASK_DEVICE_RESERVE, BATCH_ROWS, BATCH_BYTES, AGGREGATE_STATE_BYTES, SORT_RUN_BYTES,
        DEVICE_MEMORY_LIMIT, PINNED_MEMORY_LIMIT, STRING_LAYOUT,
        STRING_REFILL, JOIN_ALGORITHM, AUTO_MERGE_BYTES, JOIN_SPREAD_BYTES, SHUFFLE_DEVICE_STORE,
        SHUFFLE_DEVICE_STORE_BYTES,
        PARQUET_BATCH_BYTES, PARQUET_DEVICE_CODECS, PARQUET_HOST_CODECS, PARQUET_READER_THREADS,
        TEST_FAIL_TAGGING, TEST_FAIL_CONVERSION, TEST_FAIL_TASK_SETUP, TEST_FAIL_DEVICE_ALLOCATIONS));
    for (Overrides.ExecRule rule : Overrides.rules()) {
      entries.add(ConfEntry.bool(execKey(rule.sparkName()), true, SESSION,
          "Whether " + rule.sparkName() + " may be replaced by " + rule.description() + "."));
    }
    for (String family : ExpressionSettings.FAMILIES) {
      entries.add(ConfEntry.bool(exprKey(family), true, SESSION,
          "Whether " + family + " expressions may run on the GPU."));
    }
    return Collections.unmodifiableList(entries);
  }

  /**
   * Checks every {@code spark.warp.*} setting: unknown keys (typos) and values an entry rejects fail with a message
   * naming the key.
   */
  public static void validate(Map<String, String> settings) {
    Map<String, ConfEntry<?>> byKey = new LinkedHashMap<>();
    for (ConfEntry<?> e : ENTRIES) byKey.put(e.key(), e);
    for (Map.Entry<String, String> s : settings.entrySet()) {
      if (!s.getKey().startsWith(PREFIX)) continue;
      ConfEntry<?> entry = byKey.get(s.getKey());
      if (entry == null) {
        throw new IllegalArgumentException("unknown setting " + s.getKey() + "; sparkwarp's settings are listed in "
            + "docs/CONFIG.md");
      }
      entry.parse(s.getValue());
    }
  }
}
