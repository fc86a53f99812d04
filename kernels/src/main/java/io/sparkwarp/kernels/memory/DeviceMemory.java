package io.sparkwarp.kernels.memory;

import io.sparkwarp.kernels.DeviceStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;

/**
 * Accounts every device allocation of one backend: a hard limit, the bytes each task holds, and the set of live
 * buffers, so a query that leaves device memory behind is found ({@link #liveBuffers}).
 *
 * <p>Tasks bind themselves to the calling thread with {@link #enterTask}; allocations made on that thread are charged
 * to that task until the returned scope closes.
 *
 * <p>An allocation over the limit waits while another task that is not itself waiting holds memory (tasks run
 * concurrently, and their peaks rarely meet), up to {@link #OUT_OF_MEMORY_WAIT_MILLIS}; it fails at once when no
 * other task could free anything, so tasks never wait on each other in a circle.
 */
public final class DeviceMemory {
  /** Task id of allocations made outside any task. */
  public static final long NO_TASK = -1;

  private static final ThreadLocal<Long> CURRENT_TASK = ThreadLocal.withInitial(() -> NO_TASK);
  /** Tests' injected out-of-memory: the allocation sizes that fail on this thread; null for none. */
  private static final ThreadLocal<LongPredicate> INJECTED_FAILURES = new ThreadLocal<>();
  static final long OUT_OF_MEMORY_WAIT_MILLIS = 60_000;
  /** How often a waiting allocation looks again (frees also wake it). */
  private static final long RECHECK_MILLIS = 20;

  private final RawDeviceAllocator raw;
  private final String deviceName;
  private final long limit;
  private final AtomicLong inUse = new AtomicLong();
  private final AtomicLong peak = new AtomicLong();
  private final Map<Long, AtomicLong> perTask = new ConcurrentHashMap<>();
  private final Set<DeviceBuffer> live = ConcurrentHashMap.newKeySet();
  /** Tasks whose allocation waits for memory; guarded by this. */
  private final Set<Long> waiting = new java.util.HashSet<>();
  /** Buffers freed so far: a waiting task sees from it that memory was freed. */
  private final AtomicLong frees = new AtomicLong();

  /**
   * @param limit bytes that may be held at once; 0 means 90% of the device's memory
   */
  public DeviceMemory(RawDeviceAllocator raw, String deviceName, long limit) {
    this.raw = raw;
    this.deviceName = deviceName;
    long device = raw.deviceBytes();
    this.limit = limit > 0 ? limit : (device == Long.MAX_VALUE ? Long.MAX_VALUE : device / 10 * 9);
  }

  /**
   * Allocates at least {@code bytes} of device memory on {@code stream}, charged to the thread's current task. The
   * buffer is padded to whole 8-byte words; a zero-byte request still gets a valid address.
   *
   * @throws DeviceOutOfMemoryException when the limit or the device has no room
   */
  public DeviceBuffer allocate(long bytes, DeviceStream stream) {
    if (bytes < 0) throw new IllegalArgumentException("negative allocation: " + bytes);
    long padded = Math.max(8, (bytes + 7) & ~7L);
    LongPredicate injected = INJECTED_FAILURES.get();
    if (injected != null && injected.test(bytes)) {
      throw new DeviceOutOfMemoryException("injected out of device memory on " + deviceName + ": asked for " + bytes
          + " bytes");
    }
    reserve(padded, bytes);
    long address;
    try {
      address = raw.allocate(padded, stream);
    } catch (RuntimeException e) {
      unreserve(padded);
      throw e;
    }
    long task = CURRENT_TASK.get();
    perTask.computeIfAbsent(task, t -> new AtomicLong()).addAndGet(padded);
    DeviceBuffer buffer = new DeviceBuffer(this, address, bytes, padded, stream, task);
    live.add(buffer);
    return buffer;
  }

  private void reserve(long padded, long requested) {
    long task = CURRENT_TASK.get();
    long deadline = System.nanoTime() + OUT_OF_MEMORY_WAIT_MILLIS * 1_000_000;
    while (true) {
      long used = inUse.get();
      if (used + padded > limit) {
        if (padded > limit || System.nanoTime() > deadline || !awaitFree(task)) {
          throw new DeviceOutOfMemoryException("device memory limit reached on " + deviceName + ": asked for "
              + requested + " bytes with " + used + " of " + limit + " bytes in use");
        }
        continue;
      }
      if (inUse.compareAndSet(used, used + padded)) {
        peak.accumulateAndGet(used + padded, Math::max);
        return;
      }
    }
  }

  /**
   * Waits a moment for memory to be freed, if another task that is not waiting itself holds some; returns whether
   * it waited (false: waiting could never end well).
   */
  private synchronized boolean awaitFree(long task) {
    boolean othersCanFree = perTask.entrySet().stream().anyMatch(e -> e.getKey() != task && e.getKey() != NO_TASK
        && e.getValue().get() > 0 && !waiting.contains(e.getKey()));
    if (!othersCanFree) return false;
    waiting.add(task);
    try {
      wait(RECHECK_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      waiting.remove(task);
    }
    return true;
  }

  /**
   * Waits up to {@code millis} until another task frees device memory, the calling thread's task counting as
   * waiting meanwhile (so no task waits on it in turn); returns whether memory was freed. Returns false at once when
   * no other task that is not waiting itself holds memory: then nothing could be freed, and the caller had better
   * ask for less.
   */
  public boolean awaitFreeByOtherTask(long millis) {
    long task = CURRENT_TASK.get();
    long freesBefore = frees.get();
    long deadline = System.nanoTime() + millis * 1_000_000;
    while (frees.get() == freesBefore) {
      if (System.nanoTime() > deadline || !awaitFree(task)) return false;
    }
    return true;
  }

  private void unreserve(long padded) {
    inUse.addAndGet(-padded);
  }

  void release(DeviceBuffer buffer) {
    if (!live.remove(buffer)) return;
    raw.free(buffer.rawAddress(), buffer.paddedSize(), buffer.stream());
    unreserve(buffer.paddedSize());
    AtomicLong task = perTask.get(buffer.taskId());
    if (task != null) task.addAndGet(-buffer.paddedSize());
    frees.incrementAndGet();
    synchronized (this) {
      if (!waiting.isEmpty()) notifyAll();
    }
  }

  /** The task this thread's allocations are charged to ({@link #NO_TASK} outside tasks): for threads that help it. */
  public static long currentTask() {
    return CURRENT_TASK.get();
  }

  /** Charges this thread's allocations to {@code taskId} until the returned scope is closed. */
  public TaskScope enterTask(long taskId) {
    long previous = CURRENT_TASK.get();
    CURRENT_TASK.set(taskId);
    return () -> CURRENT_TASK.set(previous);
  }

  /**
   * For tests: this thread's allocations whose requested size {@code fails} accepts throw
   * {@link DeviceOutOfMemoryException}, as if the device were full, until the returned scope is closed.
   */
  public static TaskScope injectFailures(LongPredicate fails) {
    LongPredicate previous = INJECTED_FAILURES.get();
    INJECTED_FAILURES.set(fails);
    return () -> INJECTED_FAILURES.set(previous);
  }

  /** Restores the thread's binding (task, or injected failures) that was current before the scope began. */
  public interface TaskScope extends AutoCloseable {
    @Override
    void close();
  }

  public long bytesInUse() {
    return inUse.get();
  }

  /** Bytes held by buffers that {@code taskId} allocated and has not freed. */
  public long bytesInUse(long taskId) {
    AtomicLong bytes = perTask.get(taskId);
    return bytes == null ? 0 : bytes.get();
  }

  /** Forgets a finished task's counter; returns the bytes it still held (a leak when non-zero). */
  public long finishTask(long taskId) {
    AtomicLong bytes = perTask.remove(taskId);
    return bytes == null ? 0 : bytes.get();
  }

  public long peakBytes() {
    return peak.get();
  }

  public long limit() {
    return limit;
  }

  /** Buffers allocated and not yet closed; empty after every query that cleaned up. */
  public List<DeviceBuffer> liveBuffers() {
    return new ArrayList<>(live);
  }
}
