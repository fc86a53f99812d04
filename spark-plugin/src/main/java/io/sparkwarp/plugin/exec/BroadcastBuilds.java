package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.memory.DeviceMemory;
import io.sparkwarp.plugin.config.FaultInjection;
import io.sparkwarp.plugin.runtime.GpuDevice;
import io.sparkwarp.plugin.runtime.GpuRuntime;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.execution.joins.HashedRelation;
import org.apache.spark.sql.execution.joins.LongHashedRelation;
import org.apache.spark.sql.execution.joins.UnsafeHashedRelation;
import org.apache.spark.sql.execution.joins.ValueRowWithKeyIndex;
import org.apache.spark.storage.BlockInfoManager;
import org.apache.spark.storage.BroadcastBlockId;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Broadcast build sides on the device, one per broadcast and executor device, shared by the tasks placed there
 * ({@link BroadcastBuildCache}, one per device): made by the first task that needs it (on the device's shared stream,
 * charged to no task) and kept for later stages over the same broadcast until Spark removes the broadcast. Spark
 * removes a broadcast's blocks from every executor's BlockManager when it is destroyed or unpersisted, or when the
 * ContextCleaner finds the driver's handle unreachable (RemoveBroadcast); a build whose broadcast has no block left
 * here is freed once no task uses it, checked whenever a task releases a build and at the end of every task on the
 * executor. Idle builds are also freed, least recently used first, while they hold more than an eighth of their
 * device's memory limit; all go when the executor stops. A build that runs out of device memory cannot be split: it is
 * made again once the device's idle builds are freed or, failing that, once other tasks freed memory
 * ({@link DeviceRetry}), and fails at last with an error naming the join, the broadcast and the bytes asked for.
 */
public final class BroadcastBuilds {
  /** Per device index; made when a device first needs one. */
  private static final Map<Integer, BroadcastBuildCache> CACHES = new ConcurrentHashMap<>();
  private static boolean shutdownHooked;

  private BroadcastBuilds() {}

  /**
   * The build of broadcast {@code id} on the task's device, made from its {@code value} if that device has none yet:
   * a {@link ColumnarBroadcast}'s slices (GpuBroadcastExchangeExec), or the rows of Spark's HashedRelation (where
   * Spark's exchange stayed). The caller {@link #release}s it on the same device.
   */
  static JoinBuildSide acquire(GpuDevice device, long id, Object value, GpuHashJoinExec.PartitionPlan plan) {
    GpuRuntime runtime = GpuRuntime.get();
    synchronized (BroadcastBuilds.class) {
      if (!shutdownHooked) {
        runtime.onShutdown(BroadcastBuilds::clear);
        shutdownHooked = true;
      }
    }
    BroadcastBuildCache cache = cache(device);
    // a build is one hash table over the whole broadcast: out of device memory it cannot be split, only made again
    DeviceRetry retry = DeviceRetry.of(plan.retryMetrics(), FaultInjection.BROADCAST_BUILD);
    return cache.acquire(id, () -> retry.run(() -> make(device, value, plan),
        " making the build of broadcast " + id + " after freeing the idle builds", cache::freeIdleBuilds));
  }

  /** One task is done with broadcast {@code id}'s build on {@code device}. */
  static void release(GpuDevice device, long id) {
    cache(device).release(id);
  }

  /** Frees the idle builds of broadcasts Spark removed; the executor plugin calls it as each task ends. */
  public static void freeRemoved() {
    CACHES.values().forEach(BroadcastBuildCache::freeRemovedUnlessBusy);
  }

  /** Device bytes this executor holds for broadcast {@code id}'s builds, 0 when none: for diagnostics and tests. */
  public static long deviceBytes(long id) {
    return CACHES.values().stream().mapToLong(c -> c.deviceBytes(id)).sum();
  }

  private static BroadcastBuildCache cache(GpuDevice device) {
    return CACHES.computeIfAbsent(device.index(), i -> new BroadcastBuildCache(BroadcastBuilds::present,
        () -> device.backend().deviceMemory().limit() / 8));
  }

  /**
   * Whether broadcast {@code id} still has a block in this executor's BlockManager: its first piece (every
   * executor that read the broadcast stores the pieces it fetched, and the driver the pieces it wrote) or its
   * value. RemoveBroadcast removes them all. Asks the block info table only: BlockManager.getStatus also reads the
   * block's size from the memory store, which races with a removal in progress (contains, then get) and threw a
   * NullPointerException inside a task here.
   */
  private static boolean present(long id) {
    BlockInfoManager blocks = SparkEnv.get().blockManager().blockInfoManager();
    return blocks.get(new BroadcastBlockId(id, "piece0")).isDefined()
        || blocks.get(new BroadcastBlockId(id, "")).isDefined();
  }

  /** Puts the broadcast on the device and builds its hash table; on any failure, nothing of it is left there. */
  private static JoinBuildSide make(GpuDevice device, Object value, GpuHashJoinExec.PartitionPlan plan) {
    Backend backend = device.backend();
    DeviceStream stream = device.sharedStream();
    KeyProjection keys = plan.buildKeys();
    try (DeviceMemory.TaskScope shared = backend.deviceMemory().enterTask(DeviceMemory.NO_TASK)) {
      JoinBuildSide build = JoinBuildSide.of(backend, upload(backend, value, plan, stream), keys, stream);
      try {
        stream.synchronize();
        return build;
      } catch (RuntimeException e) {
        build.free();
        throw e;
      }
    }
  }

  /** The broadcast's rows in one device batch; nothing held when it fails. */
  private static DeviceBatch upload(Backend backend, Object value, GpuHashJoinExec.PartitionPlan plan,
      DeviceStream stream) {
    try (BufferAllocator allocator = backend.transferMemory().arrowAllocator()
            .newChildAllocator("broadcast build", 0, Long.MAX_VALUE);
        VectorSchemaRoot root = value instanceof ColumnarBroadcast columns ? columns.gather(allocator)
            : relationRows((HashedRelation) value, plan, allocator)) {
      if (root == null) {
        return DeviceBatches.empty(backend, DeviceBatches.types(plan.buildOutput(), plan.timeZone()), stream);
      }
      DeviceBatch batch = ArrowUpload.upload(backend, root, stream);
      try {
        stream.synchronize();  // the pinned rows are freed next; other tasks' streams read the build
      } catch (RuntimeException e) {
        batch.close();
        throw e;
      }
      plan.metrics().buildUploadBytes().add(root.getFieldVectors().stream().mapToLong(v -> v.getBufferSize()).sum());
      return batch;
    }
  }

  /** The relation's rows in one host Arrow batch from {@code allocator}, which the caller owns; null when none. */
  private static VectorSchemaRoot relationRows(HashedRelation relation, GpuHashJoinExec.PartitionPlan plan,
      BufferAllocator allocator) {
    try (HostBatchBuilder builder = new HostBatchBuilder(DataTypeUtils.fromAttributes(
        CollectionConverters.asScala(plan.buildOutput()).toSeq()), plan.timeZone(), allocator)) {
      // a copy of its own: a relation's lookups reuse state, and the builds of other devices read it at the same time
      builder.appendRows(rows(relation.asReadOnlyCopy()), Integer.MAX_VALUE, Long.MAX_VALUE);
      return builder.take();
    }
  }

  /**
   * Every row of the relation, once. Spark's general relation lists them directly; a single-long-key relation lists
   * each distinct key once, and its rows are those under each key; any other (an empty one) through its keys, which
   * may repeat, so they are de-duplicated first (copied: the relation reuses its key row).
   */
  private static Iterator<InternalRow> rows(HashedRelation relation) {
    if (relation instanceof UnsafeHashedRelation) {
      Iterator<ValueRowWithKeyIndex> values = CollectionConverters.asJava(relation.valuesWithKeyIndex());
      return new Iterator<>() {
        @Override
        public boolean hasNext() {
          return values.hasNext();
        }

        @Override
        public InternalRow next() {
          return values.next().getValue();
        }
      };
    }
    Iterator<InternalRow> keys = CollectionConverters.asJava(relation.keys());
    if (!(relation instanceof LongHashedRelation)) {
      java.util.Set<InternalRow> distinct = new java.util.LinkedHashSet<>();
      while (keys.hasNext()) distinct.add(keys.next().copy());
      keys = distinct.iterator();
    }
    Iterator<InternalRow> distinctKeys = keys;
    return new Iterator<>() {
      private Iterator<InternalRow> current = java.util.Collections.emptyIterator();

      @Override
      public boolean hasNext() {
        while (!current.hasNext() && distinctKeys.hasNext()) {
          scala.collection.Iterator<InternalRow> values = relation.get(distinctKeys.next());
          if (values != null) current = CollectionConverters.asJava(values);
        }
        return current.hasNext();
      }

      @Override
      public InternalRow next() {
        if (!hasNext()) throw new java.util.NoSuchElementException();
        return current.next();
      }
    };
  }

  private static void clear() {
    CACHES.values().forEach(BroadcastBuildCache::clear);
    CACHES.clear();
    synchronized (BroadcastBuilds.class) {
      shutdownHooked = false;
    }
  }
}
