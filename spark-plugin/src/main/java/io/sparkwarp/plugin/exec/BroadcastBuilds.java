package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.memory.DeviceMemory;
import io.sparkwarp.plugin.runtime.GpuRuntime;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.types.DataTypeUtils;
import org.apache.spark.sql.execution.joins.HashedRelation;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Broadcast build sides on the device, one per broadcast and executor, shared by its tasks: made by the first task
 * that needs it (on the runtime's shared stream, charged to no task), reference counted while tasks probe it, and
 * kept afterwards for later stages over the same broadcast. Unused builds are freed, least recently used first,
 * once the cache holds more than an eighth of the device memory limit, and all when the executor stops.
 */
final class BroadcastBuilds {
  private static final Map<Long, Entry> CACHE = new LinkedHashMap<>(16, 0.75f, true);
  private static boolean shutdownHooked;

  private BroadcastBuilds() {}

  /** One build on the device, and how many tasks use it. */
  private static final class Entry {
    final JoinBuildSide build;
    int users;

    Entry(JoinBuildSide build) {
      this.build = build;
    }
  }

  /** The build of broadcast {@code id}, made from {@code relation}'s rows if this executor has none yet. */
  static synchronized JoinBuildSide acquire(long id, HashedRelation relation, GpuHashJoinExec.PartitionPlan plan) {
    GpuRuntime runtime = GpuRuntime.get();
    if (!shutdownHooked) {
      runtime.onShutdown(BroadcastBuilds::clear);
      shutdownHooked = true;
    }
    Entry entry = CACHE.get(id);
    if (entry == null) {
      entry = make(runtime, relation, plan);
      CACHE.put(id, entry);
    }
    entry.users++;
    return entry.build;
  }

  private static Entry make(GpuRuntime runtime, HashedRelation relation, GpuHashJoinExec.PartitionPlan plan) {
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
      return new Entry(build);
    }
  }

  /**
   * Every row of the relation, once: the rows under each distinct key. A relation lists a key once per row stored
   * under it, so keys are de-duplicated first (copied: the relation reuses its key row).
   */
  private static Iterator<InternalRow> rows(HashedRelation relation) {
    java.util.Set<InternalRow> distinct = new java.util.LinkedHashSet<>();
    for (Iterator<InternalRow> keys = CollectionConverters.asJava(relation.keys()); keys.hasNext(); ) {
      distinct.add(keys.next().copy());
    }
    Iterator<InternalRow> keys = distinct.iterator();
    return new Iterator<>() {
      private Iterator<InternalRow> current = java.util.Collections.emptyIterator();

      @Override
      public boolean hasNext() {
        while (!current.hasNext() && keys.hasNext()) {
          scala.collection.Iterator<InternalRow> values = relation.get(keys.next());
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

  /** One task is done with {@code build}. */
  static synchronized void release(JoinBuildSide build) {
    CACHE.values().stream().filter(e -> e.build == build).findFirst().ifPresent(e -> e.users--);
    long budget = GpuRuntime.get().backend().deviceMemory().limit() / 8;
    long held = CACHE.values().stream().mapToLong(e -> e.build.deviceBytes()).sum();
    Iterator<Map.Entry<Long, Entry>> lru = CACHE.entrySet().iterator();
    while (held > budget && lru.hasNext()) {
      Entry e = lru.next().getValue();
      if (e.users > 0) continue;
      lru.remove();
      held -= e.build.deviceBytes();
      e.build.free();
    }
  }

  private static synchronized void clear() {
    CACHE.values().forEach(e -> e.build.free());
    CACHE.clear();
    shutdownHooked = false;
  }
}
