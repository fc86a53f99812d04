package io.sparkwarp.plugin.exec;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Device builds of broadcasts, one per broadcast id, shared by the tasks that probe them: reference counted while
 * they do, kept afterwards for later stages over the same broadcast, and freed once idle when their broadcast is
 * gone (Spark removed it) or, least recently used first, while the idle ones together exceed a budget. A build in
 * use is never freed. Thread-safe.
 */
final class BroadcastBuildCache {
  /** Whether broadcast id's data is still on this executor; false once Spark removed the broadcast. */
  private final LongPredicate broadcastPresent;
  /** Device bytes the cached builds may hold before idle ones are freed though their broadcast lives. */
  private final LongSupplier budget;
  /** Held while a build is made, so that an executor makes each build once. */
  private final ReentrantLock lock = new ReentrantLock();
  /** In access order: the least recently used first. */
  private final Map<Long, Entry> builds = new LinkedHashMap<>(16, 0.75f, true);

  /** One build, and how many tasks use it. */
  private static final class Entry {
    final JoinBuildSide build;
    int users;

    Entry(JoinBuildSide build) {
      this.build = build;
    }
  }

  BroadcastBuildCache(LongPredicate broadcastPresent, LongSupplier budget) {
    this.broadcastPresent = broadcastPresent;
    this.budget = budget;
  }

  /** The build of broadcast {@code id}, made by {@code make} if there is none; the caller {@link #release}s it. */
  JoinBuildSide acquire(long id, Supplier<JoinBuildSide> make) {
    lock.lock();
    try {
      Entry entry = builds.get(id);
      if (entry == null) {
        entry = new Entry(make.get());
        builds.put(id, entry);
      }
      entry.users++;
      return entry.build;
    } finally {
      lock.unlock();
    }
  }

  /** One task is done with broadcast {@code id}'s build; idle builds are then freed as the class comment says. */
  void release(long id) {
    lock.lock();
    try {
      Entry entry = builds.get(id);
      if (entry == null || entry.users == 0) throw new IllegalStateException("broadcast " + id + " was not acquired");
      entry.users--;
      freeIdle();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Frees the idle builds of removed broadcasts, unless another thread holds the cache (making a build, or
   * releasing one, which frees them itself): cheap enough to call at every task's end.
   */
  void freeRemovedUnlessBusy() {
    if (!lock.tryLock()) return;
    try {
      freeIdle();
    } finally {
      lock.unlock();
    }
  }

  /** Idle builds of removed broadcasts, then idle builds over the budget, least recently used first. */
  private void freeIdle() {
    if (builds.isEmpty()) return;  // nothing to look up, and the budget needs the executor's GPU
    builds.entrySet().removeIf(e -> {
      boolean free = e.getValue().users == 0 && !broadcastPresent.test(e.getKey());
      if (free) e.getValue().build.free();
      return free;
    });
    long held = builds.values().stream().mapToLong(e -> e.build.deviceBytes()).sum();
    long limit = budget.getAsLong();
    for (Iterator<Entry> lru = builds.values().iterator(); held > limit && lru.hasNext(); ) {
      Entry e = lru.next();
      if (e.users > 0) continue;
      lru.remove();
      held -= e.build.deviceBytes();
      e.build.free();
    }
  }

  /** Device bytes of broadcast {@code id}'s build, or 0 when none is cached. */
  long deviceBytes(long id) {
    lock.lock();
    try {
      // a look that leaves the use order as it is
      return builds.entrySet().stream().filter(e -> e.getKey() == id).mapToLong(e -> e.getValue().build.deviceBytes())
          .sum();
    } finally {
      lock.unlock();
    }
  }

  /** Frees every build, used or not: the executor is stopping. */
  void clear() {
    lock.lock();
    try {
      builds.values().forEach(e -> e.build.free());
      builds.clear();
    } finally {
      lock.unlock();
    }
  }
}
