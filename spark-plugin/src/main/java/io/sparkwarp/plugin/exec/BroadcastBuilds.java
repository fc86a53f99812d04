package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.kernels.memory.DeviceMemory;
import io.sparkwarp.join.HashJoinBuild;
import io.sparkwarp.plugin.runtime.GpuRuntime;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
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

  /** One build on the device, and the tasks using it. */
  private static final class Entry implements HashJoinIterator.Build {
    final DeviceBatch batch;
    final JoinKeys keys;
    final HashJoinBuild table;
    int users;

    Entry(DeviceBatch batch, JoinKeys keys, HashJoinBuild table) {
      this.batch = batch;
      this.keys = keys;
      this.table = table;
    }

    @Override
    public DeviceBatch batch() {
      return batch;
    }

    @Override
    public JoinKeys keys() {
      return keys;
    }

    @Override
    public HashJoinBuild table() {
      return table;
    }

    /** One user is done with it. */
    @Override
    public void close() {
      release(this);
    }

    void free() {
      Closeables.closeAll(List.of(table, batch));
    }
  }

  /** The build of broadcast {@code id}, made from {@code relation}'s rows if this executor has none yet. */
  static synchronized HashJoinIterator.Build acquire(long id, HashedRelation relation, GpuHashJoinExec.PartitionPlan plan) {
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
    return entry;
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
      try {
        JoinKeys keys = JoinKeyColumns.of(batch, plan.spec().buildKeys(), plan.spec().nullSafe());
        HashJoinBuild table = HashJoinBuild.build(backend, keys, HashJoinBuild.Choice.AUTO, stream);
        stream.synchronize();
        return new Entry(batch, keys, table);
      } catch (RuntimeException e) {
        batch.close();
        throw e;
      }
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

  private static synchronized void release(Entry entry) {
    entry.users--;
    long budget = GpuRuntime.get().backend().deviceMemory().limit() / 8;
    long held = CACHE.values().stream().mapToLong(e -> e.batch.deviceBytes()).sum();
    Iterator<Map.Entry<Long, Entry>> lru = CACHE.entrySet().iterator();
    while (held > budget && lru.hasNext()) {
      Entry e = lru.next().getValue();
      if (e.users > 0) continue;
      lru.remove();
      held -= e.batch.deviceBytes();
      e.free();
    }
  }

  private static synchronized void clear() {
    CACHE.values().forEach(Entry::free);
    CACHE.clear();
    shutdownHooked = false;
  }
}
