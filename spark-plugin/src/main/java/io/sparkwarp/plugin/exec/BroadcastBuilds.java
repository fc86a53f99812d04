package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.memory.DeviceMemory;
import io.sparkwarp.plugin.runtime.GpuRuntime;
import java.util.Iterator;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.execution.joins.HashedRelation;
import org.apache.spark.sql.execution.joins.LongHashedRelation;
import org.apache.spark.sql.execution.joins.UnsafeHashedRelation;
import org.apache.spark.sql.execution.joins.ValueRowWithKeyIndex;
import org.apache.spark.storage.BlockManager;
import org.apache.spark.storage.BroadcastBlockId;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Broadcast build sides on the device, one per broadcast and executor, shared by its tasks ({@link
 * BroadcastBuildCache}): made by the first task that needs it (on the runtime's shared stream, charged to no task)
 * and kept for later stages over the same broadcast until Spark removes the broadcast. Spark removes a broadcast's
 * blocks from every executor's BlockManager when it is destroyed or unpersisted, or when the ContextCleaner finds
 * the driver's handle unreachable (RemoveBroadcast); a build whose broadcast has no block left here is freed once no
 * task uses it, checked whenever a task releases a build and at the end of every task on the executor. Idle builds
 * are also freed, least recently used first, while they hold more than an eighth of the device memory limit; all go
 * when the executor stops.
 */
public final class BroadcastBuilds {
  private static final BroadcastBuildCache CACHE = new BroadcastBuildCache(BroadcastBuilds::present,
      () -> GpuRuntime.get().backend().deviceMemory().limit() / 8);
  private static boolean shutdownHooked;

  private BroadcastBuilds() {}

  /** The build of broadcast {@code id}, made from {@code relation}'s rows if this executor has none yet. */
  static JoinBuildSide acquire(long id, HashedRelation relation, GpuHashJoinExec.PartitionPlan plan) {
    GpuRuntime runtime = GpuRuntime.get();
    synchronized (BroadcastBuilds.class) {
      if (!shutdownHooked) {
        runtime.onShutdown(BroadcastBuilds::clear);
        shutdownHooked = true;
      }
    }
    return CACHE.acquire(id, () -> make(runtime, relation, plan));
  }

  /** One task is done with broadcast {@code id}'s build. */
  static void release(long id) {
    CACHE.release(id);
  }

  /** Frees the idle builds of broadcasts Spark removed; the executor plugin calls it as each task ends. */
  public static void freeRemoved() {
    CACHE.freeRemovedUnlessBusy();
  }

  /** Device bytes this executor holds for broadcast {@code id}'s build, 0 when none: for diagnostics and tests. */
  public static long deviceBytes(long id) {
    return CACHE.deviceBytes(id);
  }

  /**
   * Whether broadcast {@code id} still has a block in this executor's BlockManager: its first piece (every
   * executor that read the broadcast stores the pieces it fetched, and the driver the pieces it wrote) or its
   * value. RemoveBroadcast removes them all.
   */
  private static boolean present(long id) {
    BlockManager blocks = SparkEnv.get().blockManager();
    return blocks.getStatus(new BroadcastBlockId(id, "piece0")).isDefined()
        || blocks.getStatus(new BroadcastBlockId(id, "")).isDefined();
  }

  private static JoinBuildSide make(GpuRuntime runtime, HashedRelation relation,
      GpuHashJoinExec.PartitionPlan plan) {
    Backend backend = runtime.backend();
    DeviceStream stream = runtime.sharedStream();
    try (DeviceMemory.TaskScope shared = backend.deviceMemory().enterTask(DeviceMemory.NO_TASK);
        BufferAllocator allocator = backend.transferMemory().arrowAllocator()
            .newChildAllocator("broadcast build", 0, Long.MAX_VALUE);
        HostBatchBuilder builder = new HostBatchBuilder(DataTypeUtils.fromAttributes(
            CollectionConverters.asScala(plan.buildOutput()).toSeq()), plan.timeZone(), allocator)) {
      builder.appendRows(rows(relation), Integer.MAX_VALUE, Long.MAX_VALUE);
      DeviceBatch batch;
      try (VectorSchemaRoot root = builder.take()) {
        batch = root == null ? DeviceBatches.empty(backend, DeviceBatches.types(plan.buildOutput(), plan.timeZone()),
            stream) : ArrowUpload.upload(backend, root, stream);
        stream.synchronize();  // the pinned rows are freed next; other tasks' streams read the build
      }
      JoinBuildSide build = JoinBuildSide.of(backend, batch, plan.buildKeys(), stream);
      stream.synchronize();
      return build;
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
    CACHE.clear();
    synchronized (BroadcastBuilds.class) {
      shutdownHooked = false;
    }
  }
}
