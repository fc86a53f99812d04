package io.sparkwarp.plugin.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.join.HashJoinBuild;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.kernels.testing.BackendTestBase;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Broadcast builds with a fake block-presence check standing for the executor's BlockManager: a build is made once
 * and shared, stays while its broadcast lives, and its device memory is released once the broadcast is removed and
 * no task uses it, never before; the budget frees idle builds of live broadcasts, least recently used first.
 */
class BroadcastBuildCacheTest extends BackendTestBase {
  /** The broadcasts Spark has removed, as the BlockManager would show it. */
  private Set<Long> removed;
  private long budget;
  private BroadcastBuildCache cache;
  private AtomicInteger made;

  /** A fresh cache per test (the base class shares one instance between tests). */
  @BeforeEach
  void newCache() {
    removed = new HashSet<>();
    budget = Long.MAX_VALUE;
    cache = new BroadcastBuildCache(id -> !removed.contains(id), () -> budget);
    made = new AtomicInteger();
  }

  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  /** A build of {@code rows} int keys. */
  private JoinBuildSide build(int rows) {
    made.incrementAndGet();
    DeviceBatch batch;
    try (IntVector keys = new IntVector("k", transfer)) {
      keys.allocateNew(rows);
      for (int i = 0; i < rows; i++) keys.set(i, i % 7);
      keys.setValueCount(rows);
      batch = ArrowUpload.upload(backend, List.<FieldVector>of(keys), stream);
    }
    JoinKeys keys = JoinKeys.of(batch.column(0));
    return new JoinBuildSide(batch, new ProjectedKeys(keys, List.of()),
        HashJoinBuild.build(backend, keys, HashJoinBuild.Choice.AUTO, stream));
  }

  private long deviceBytes() {
    return backend.deviceMemory().bytesInUse();
  }

  @Test
  void aRemovedBroadcastsBuildIsFreedOnceNoTaskUsesIt() {
    JoinBuildSide first = cache.acquire(1, () -> build(100));
    JoinBuildSide second = cache.acquire(1, () -> build(100));
    assertSame(first, second, "one build per broadcast");
    assertEquals(1, made.get());
    long held = deviceBytes();
    assertTrue(held > 0 && cache.deviceBytes(1) > 0);

    removed.add(1L);
    cache.release(1);
    cache.freeRemovedUnlessBusy();
    assertEquals(held, deviceBytes(), "a task still probes the build");
    cache.release(1);
    assertEquals(0, deviceBytes(), "the last task gone, the removed broadcast's build is freed");
    assertEquals(0, cache.deviceBytes(1));
  }

  @Test
  void anIdleBuildStaysWhileItsBroadcastLivesAndGoesWhenItIsRemoved() {
    cache.acquire(1, () -> build(50));
    cache.release(1);
    long held = deviceBytes();
    cache.freeRemovedUnlessBusy();
    assertEquals(held, deviceBytes(), "kept for later stages over the same broadcast");
    cache.acquire(1, () -> build(50));
    cache.release(1);
    assertEquals(1, made.get(), "a later stage reuses it");

    removed.add(1L);
    cache.freeRemovedUnlessBusy();
    assertEquals(0, deviceBytes(), "freed at the next task end after Spark removed the broadcast");
  }

  @Test
  void onlyTheRemovedBroadcastsBuildGoes() {
    cache.acquire(1, () -> build(40));
    cache.acquire(2, () -> build(60));
    cache.release(1);
    cache.release(2);
    long second = cache.deviceBytes(2);
    removed.add(1L);
    cache.freeRemovedUnlessBusy();
    assertEquals(0, cache.deviceBytes(1));
    assertEquals(second, cache.deviceBytes(2));
    cache.clear();
    assertEquals(0, deviceBytes());
  }

  @Test
  void overTheBudgetIdleBuildsGoLeastRecentlyUsedFirst() {
    cache.acquire(1, () -> build(1000));
    cache.acquire(2, () -> build(1000));
    cache.acquire(3, () -> build(1000));
    cache.release(1);
    cache.release(3);
    budget = cache.deviceBytes(1) + cache.deviceBytes(2);
    cache.release(2);
    assertEquals(0, cache.deviceBytes(1), "the least recently used idle build");
    assertTrue(cache.deviceBytes(2) > 0 && cache.deviceBytes(3) > 0);
    cache.clear();
  }

  @Test
  void releasingWhatWasNotAcquiredIsABug() {
    assertThrows(IllegalStateException.class, () -> cache.release(9));
  }
}
