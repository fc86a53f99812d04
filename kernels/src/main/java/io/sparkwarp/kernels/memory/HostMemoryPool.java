package io.sparkwarp.kernels.memory;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Set;
import java.util.TreeMap;

/**
 * The host memory every transfer goes through. Pinning memory costs milliseconds per call (about 45 ms for 95 MB on
 * an H200 host), so the pool pins in large pieces and keeps them: small requests are carved first-fit out of slabs,
 * large ones get regions of their own, sized in classes (an eighth of a power of two apart) so that requests of
 * nearly equal sizes, such as a scan's batches, share freed regions instead of pinning new ones.
 *
 * <p>Thread-safe; every method locks the pool (allocation is per column buffer, never per row), except that a new
 * large region is pinned outside the lock so that other threads' requests need not wait for it.
 */
public final class HostMemoryPool implements AutoCloseable {
  /** Alignment of every block: a cache line, and more than any Arrow type needs. */
  static final long ALIGNMENT = 64;

  private final RawHostAllocator raw;
  private final long slabBytes;
  private final long limit;
  /** Every raw region (slabs and large regions) by start address, with its length. */
  private final NavigableMap<Long, Long> regions = new TreeMap<>();
  /** Free ranges inside slabs: start to length, coalesced. */
  private final NavigableMap<Long, Long> slabFree = new TreeMap<>();
  /** Start addresses of the regions in {@link #regions} that are large ones, not slabs. */
  private final Set<Long> large = new HashSet<>();
  /** Large regions that were freed and wait for reuse: length to start addresses. */
  private final NavigableMap<Long, List<Long>> cachedLarge = new TreeMap<>();
  private long reservedBytes;
  private long usedBytes;
  private boolean closed;

  /**
   * @param slabBytes size of one slab; requests over half of it get regions of their own
   * @param limit bytes the pool may reserve from the system; 0 means unlimited
   */
  public HostMemoryPool(RawHostAllocator raw, long slabBytes, long limit) {
    this.raw = raw;
    this.slabBytes = align(slabBytes);
    this.limit = limit > 0 ? limit : Long.MAX_VALUE;
  }

  private static long align(long bytes) {
    return (bytes + ALIGNMENT - 1) & -ALIGNMENT;
  }

  /** Whether the pool's memory is page-locked (true for the CUDA backend). */
  public boolean pinned() {
    return raw.pinned();
  }

  /**
   * A block of at least {@code bytes} (a large one of its whole region); a zero-byte request gets a minimal block
   * with a valid address.
   */
  public HostBlock allocate(long bytes) {
    if (bytes < 0) throw new IllegalArgumentException("negative allocation: " + bytes);
    long size = align(Math.max(bytes, 1));
    if (size <= slabBytes / 2) {
      synchronized (this) {
        checkOpen();
        long address = takeFromSlabs(size);
        usedBytes += size;
        return new HostBlock(this, address, size);
      }
    }
    long length = sizeClass(size);
    synchronized (this) {
      checkOpen();
      Long cached = takeCached(length);
      if (cached != null) {
        long region = regions.get(cached);
        usedBytes += region;
        return new HostBlock(this, cached, region);
      }
      makeRoom(length);
      reservedBytes += length;  // before pinning, so that concurrent requests respect the limit
    }
    long address;
    try {
      address = raw.allocate(length);
    } catch (RuntimeException | Error e) {
      synchronized (this) {
        reservedBytes -= length;
      }
      throw e;
    }
    synchronized (this) {
      if (closed) {
        raw.free(address, length);
        throw new IllegalStateException("host memory pool is closed");
      }
      regions.put(address, length);
      large.add(address);
      usedBytes += length;
      return new HostBlock(this, address, length);
    }
  }

  /** A large request's region length: rounded up to an eighth of the power of two below it. */
  static long sizeClass(long size) {
    long step = Math.max(ALIGNMENT, Long.highestOneBit(size) / 8);
    return (size + step - 1) / step * step;
  }

  private void checkOpen() {
    if (closed) throw new IllegalStateException("host memory pool is closed");
  }

  private long takeFromSlabs(long size) {
    for (Map.Entry<Long, Long> free : slabFree.entrySet()) {
      if (free.getValue() >= size) {
        long start = free.getKey();
        long rest = free.getValue() - size;
        slabFree.remove(start);
        if (rest > 0) slabFree.put(start + size, rest);
        return start;
      }
    }
    long slab = reserve(slabBytes);
    if (slabBytes > size) slabFree.put(slab + size, slabBytes - size);
    return slab;
  }

  /**
   * The start of the smallest cached region of at least {@code length} and at most twice it (so big regions are not
   * pinned down by small requests), taken out of the cache; null when there is none.
   */
  private Long takeCached(long length) {
    Map.Entry<Long, List<Long>> cached = cachedLarge.ceilingEntry(length);
    if (cached == null || cached.getKey() > 2 * length) return null;
    long start = cached.getValue().remove(cached.getValue().size() - 1);
    if (cached.getValue().isEmpty()) cachedLarge.remove(cached.getKey());
    return start;
  }

  /** Pins a new slab, first giving cached large regions back to the system when the limit needs it. */
  private long reserve(long size) {
    makeRoom(size);
    long address = raw.allocate(size);
    regions.put(address, size);
    reservedBytes += size;
    return address;
  }

  /** Gives cached large regions back until {@code size} more bytes fit the limit, or fails. */
  private void makeRoom(long size) {
    if (reservedBytes + size > limit) releaseCachedLarge(reservedBytes + size - limit);
    if (reservedBytes + size > limit) {
      throw new OutOfMemoryError("host transfer memory limit reached: asked for " + size + " bytes with "
          + reservedBytes + " of " + limit + " bytes reserved");
    }
  }

  private void releaseCachedLarge(long wanted) {
    long released = 0;
    Iterator<Map.Entry<Long, List<Long>>> it = cachedLarge.descendingMap().entrySet().iterator();
    while (released < wanted && it.hasNext()) {
      Map.Entry<Long, List<Long>> e = it.next();
      for (long start : e.getValue()) {
        raw.free(start, e.getKey());
        regions.remove(start);
        large.remove(start);
        reservedBytes -= e.getKey();
        released += e.getKey();
      }
      it.remove();
    }
  }

  synchronized void free(long address, long size) {
    if (closed) return;
    usedBytes -= size;
    if (large.contains(address)) {  // a large block is its whole region
      cachedLarge.computeIfAbsent(size, k -> new ArrayList<>()).add(address);
      return;
    }
    long start = address;
    long length = size;
    Map.Entry<Long, Long> before = slabFree.floorEntry(address);
    if (before != null && before.getKey() + before.getValue() == address && sameSlab(before.getKey(), address)) {
      start = before.getKey();
      length += before.getValue();
      slabFree.remove(before.getKey());
    }
    Long afterLength = slabFree.get(address + size);
    if (afterLength != null && sameSlab(address, address + size)) {
      slabFree.remove(address + size);
      length += afterLength;
    }
    slabFree.put(start, length);
  }

  /** Two adjacent addresses belong to one slab (slabs allocated back to back must not merge). */
  private boolean sameSlab(long a, long b) {
    return regions.floorKey(a).equals(regions.floorKey(b));
  }

  /** Bytes handed out in blocks and not yet returned. */
  public synchronized long usedBytes() {
    return usedBytes;
  }

  /** Bytes reserved from the system, in use or cached. */
  public synchronized long reservedBytes() {
    return reservedBytes;
  }

  /** Gives every region back to the system. Blocks still open become invalid. */
  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    for (Map.Entry<Long, Long> region : regions.entrySet()) raw.free(region.getKey(), region.getValue());
    regions.clear();
    large.clear();
    slabFree.clear();
    cachedLarge.clear();
    reservedBytes = 0;
  }
}
