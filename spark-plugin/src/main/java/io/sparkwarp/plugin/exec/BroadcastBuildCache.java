package io.sparkwarp.plugin.exec;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongPredicate;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * Device builds of broadcasts, one per broadcast id, shared by the tasks that probe them: reference counted while
 * they do, kept afterwards for later stages over the same broadcast, and freed once idle when their broadcast is
 * gone (Spark removed it) or, least recently used first, while the idle ones together exceed a budget, or all of them
 * when a build being made runs out of device memory ({@link #freeIdleBuilds}). A build in use is never freed.
 *
 * <p>Thread-safe, and the lock is never held while a build is made: making one may wait for other tasks to free
 * device memory, which they do by releasing their builds here. The first task that needs a build makes it, and the
 * others that need it wait for that one alone; when making it fails, nothing of it stays, and the next of them makes
 * it again.
 */
final class BroadcastBuildCache {
  /** Whether broadcast id's data is still on this executor; false once Spark removed the broadcast. */
  private final LongPredicate broadcastPresent;
  /** Device bytes the cached builds may hold before idle ones are freed though their broadcast lives. */
  private final LongSupplier budget;
  /** Guards the map and its entries; held for bookkeeping only, never while a build is made. */
  private final ReentrantLock lock = new ReentrantLock();
  /** In access order: the least recently used first. */
  private final Map<Long, Entry> builds = new LinkedHashMap<>(16, 0.75f, true);

  /** One build, or the place of one being made, and how many tasks use it. */
  private static final class Entry {
    /** Null while the build is made. */
    JoinBuildSide build;
    int users;
    /** Opens once making the build ended, either way. */
    final CountDownLatch made = new CountDownLatch(1);

    boolean idle() {
      return build != null && users == 0;
    }

    long deviceBytes() {
      return build == null ? 0 : build.deviceBytes();
    }
  }

  BroadcastBuildCache(LongPredicate broadcastPresent, LongSupplier budget) {
    this.broadcastPresent = broadcastPresent;
    this.budget = budget;
  }

  /**
   * The build of broadcast {@code id}, made by {@code make} if there is none, or by the task that is making it; the
   * caller {@link #release}s it.
   */
  JoinBuildSide acquire(long id, Supplier<JoinBuildSide> make) {
    while (true) {
      Entry entry;
      boolean making;
      lock.lock();
      try {
        entry = builds.get(id);
        making = entry == null;
        if (making) {
          entry = new Entry();
          builds.put(id, entry);
        } else if (entry.build != null) {
          entry.users++;
          return entry.build;
        }
      } finally {
        lock.unlock();
      }
      if (making) return make(id, entry, make);
      awaitMade(entry);  // then it is there, or its maker failed and the next round makes it here
    }
  }

  /** Makes the build of {@code entry}, this thread's placeholder for broadcast {@code id}, outside the lock. */
  private JoinBuildSide make(long id, Entry entry, Supplier<JoinBuildSide> make) {
    try {
      JoinBuildSide build;
      try {
        build = make.get();
      } catch (RuntimeException | Error e) {
        lock.lock();
        try {
          builds.remove(id, entry);
        } finally {
          lock.unlock();
        }
        throw e;
      }
      lock.lock();
      try {
        if (builds.get(id) != entry) {
          build.free();
          throw new IllegalStateException("the executor stopped while broadcast " + id + "'s build was made");
        }
        entry.build = build;
        entry.users = 1;
        return build;
      } finally {
        lock.unlock();
      }
    } finally {
      entry.made.countDown();
    }
  }

  private static void awaitMade(Entry entry) {
    try {
      entry.made.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();  // the task was killed
      throw new IllegalStateException("interrupted while another task made a broadcast's build", e);
    }
  }

  /** One task is done with broadcast {@code id}'s build; idle builds are then freed as the class comment says. */
  void release(long id) {
    lock.lock();
    try {
      Entry entry = builds.get(id);
      if (entry == null || entry.users == 0) throw new IllegalStateException("broadcast " + id + " was not acquired");
      entry.users--;
      freeIdle(budget);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Frees the idle builds of removed broadcasts, unless another thread holds the cache (releasing a build, which
   * frees them itself): cheap enough to call at every task's end.
   */
  void freeRemovedUnlessBusy() {
    if (!lock.tryLock()) return;
    try {
      freeIdle(budget);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Frees every idle build, of live broadcasts too: a build being made ran out of device memory, and a later stage
   * had better make an idle build again than this one fail. Returns whether there was any.
   */
  boolean freeIdleBuilds() {
    lock.lock();
    try {
      int before = builds.size();
      freeIdle(() -> 0);
      return builds.size() < before;
    } finally {
      lock.unlock();
    }
  }

  /** Idle builds of removed broadcasts, then idle builds over {@code limit} bytes, least recently used first. */
  private void freeIdle(LongSupplier limit) {
    if (builds.isEmpty()) return;  // nothing to look up, and the budget needs the executor's GPU
    builds.entrySet().removeIf(e -> {
      boolean free = e.getValue().idle() && !broadcastPresent.test(e.getKey());
      if (free) e.getValue().build.free();
      return free;
    });
    long held = builds.values().stream().mapToLong(Entry::deviceBytes).sum();
    long bytes = limit.getAsLong();
    for (Iterator<Entry> lru = builds.values().iterator(); held > bytes && lru.hasNext(); ) {
      Entry e = lru.next();
      if (!e.idle()) continue;
      lru.remove();
      held -= e.deviceBytes();
      e.build.free();
    }
  }

  /** Device bytes of broadcast {@code id}'s build, or 0 when none is cached. */
  long deviceBytes(long id) {
    lock.lock();
    try {
      // a look that leaves the use order as it is
      return builds.entrySet().stream().filter(e -> e.getKey() == id).mapToLong(e -> e.getValue().deviceBytes())
          .sum();
    } finally {
      lock.unlock();
    }
  }

  /** Frees every build, used or not: the executor is stopping (a build still being made is freed by its maker). */
  void clear() {
    lock.lock();
    try {
      builds.values().stream().filter(e -> e.build != null).forEach(e -> e.build.free());
      builds.clear();
    } finally {
      lock.unlock();
    }
  }
}
