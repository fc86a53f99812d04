package io.sparkwarp.plugin.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.join.HashJoinBuild;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.kernels.testing.BackendTestBase;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Broadcast builds with a fake block-presence check standing for the executor's BlockManager: a build is made once
 * and shared, stays while its broadcast lives, and its device memory is released once the broadcast is removed and
 * no task uses it, never before; the budget frees idle builds of live broadcasts, least recently used first. A build
 * is made outside the cache's lock, and a make that fails leaves nothing behind.
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

  /**
   * A build being made holds no lock: another broadcast's build is acquired and released meanwhile (a task freeing
   * memory the maker may be waiting for), and a second task that needs the build being made waits for its maker.
   */
  @Test
  void makingABuildBlocksNeitherOtherBroadcastsNorTheirReleases() throws Exception {
    cache.acquire(2, () -> build(100));
    CountDownLatch making = new CountDownLatch(1);
    CountDownLatch mayFinish = new CountDownLatch(1);
    ExecutorService tasks = Executors.newFixedThreadPool(2);
    try {
      Future<JoinBuildSide> maker = tasks.submit(() -> cache.acquire(1, () -> {
        making.countDown();
        await(mayFinish);
        return build(50);
      }));
      assertTrue(making.await(5, TimeUnit.SECONDS));
      Future<JoinBuildSide> waiter = tasks.submit(() -> cache.acquire(1, () -> build(50)));
      budget = 0;
      assertTimeoutPreemptively(Duration.ofSeconds(5), () -> cache.release(2));
      assertEquals(0, cache.deviceBytes(2), "released and freed (over the budget) while the other build is made");
      assertEquals(0, cache.deviceBytes(1), "not made yet");
      cache.freeRemovedUnlessBusy();
      assertFalse(cache.freeIdleBuilds(), "a build being made is not idle");
      Thread.sleep(50);
      assertFalse(waiter.isDone(), "waits for the maker");

      mayFinish.countDown();
      JoinBuildSide built = maker.get(5, TimeUnit.SECONDS);
      assertSame(built, waiter.get(5, TimeUnit.SECONDS), "made once, shared");
      assertEquals(2, made.get(), "broadcast 2's build and broadcast 1's, once");
      cache.release(1);
      cache.release(1);
    } finally {
      mayFinish.countDown();
      tasks.shutdownNow();
    }
    cache.clear();
    assertEquals(0, deviceBytes());
  }

  /** A make that fails leaves nothing behind: the next task to need the build makes it again. */
  @Test
  void aFailedMakeLeavesNoEntry() {
    RuntimeException failure = new IllegalStateException("out of memory");
    assertSame(failure, assertThrows(IllegalStateException.class, () -> cache.acquire(1, () -> {
      throw failure;
    })));
    assertEquals(0, cache.deviceBytes(1));
    assertThrows(IllegalStateException.class, () -> cache.release(1), "nothing acquired");
    JoinBuildSide build = cache.acquire(1, () -> build(10));
    assertEquals(1, made.get());
    assertTrue(cache.deviceBytes(1) > 0 && build != null);
    cache.release(1);
    cache.clear();
  }

  /** Out of device memory, a maker frees the idle builds, of live broadcasts too, and never one in use. */
  @Test
  void freeingIdleBuildsSparesThoseInUse() {
    cache.acquire(1, () -> build(100));
    cache.acquire(2, () -> build(100));
    cache.acquire(3, () -> build(100));
    cache.release(1);
    cache.release(3);
    long inUse = cache.deviceBytes(2);
    long held = deviceBytes();
    assertTrue(cache.freeIdleBuilds());
    assertEquals(0, cache.deviceBytes(1));
    assertEquals(0, cache.deviceBytes(3));
    assertEquals(inUse, cache.deviceBytes(2));
    assertTrue(deviceBytes() < held / 2, "two of three builds' memory released");
    assertFalse(cache.freeIdleBuilds(), "none idle left");
    cache.release(2);
    cache.clear();
  }

  private static void await(CountDownLatch latch) {
    try {
      assertTrue(latch.await(5, TimeUnit.SECONDS));
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void releasingWhatWasNotAcquiredIsABug() {
    assertThrows(IllegalStateException.class, () -> cache.release(9));
  }
}
