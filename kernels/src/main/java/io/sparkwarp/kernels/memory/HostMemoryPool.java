package io.sparkwarp.kernels.memory;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The host memory every transfer goes through. Pinning memory costs milliseconds per call, so the pool pins in
 * large pieces and keeps them: small requests are carved first-fit out of slabs, large ones get regions of their
 * own that are cached for reuse after they are freed.
 *
 * <p>Thread-safe; every method locks the pool (allocation is per column buffer, never per row).
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

  /** A block of at least {@code bytes}; a zero-byte request gets a minimal block with a valid address. */
  public synchronized HostBlock allocate(long bytes) {
    if (closed) throw new IllegalStateException("host memory pool is closed");
    if (bytes < 0) throw new IllegalArgumentException("negative allocation: " + bytes);
    long size = align(Math.max(bytes, 1));
    long address = size > slabBytes / 2 ? takeLarge(size) : takeFromSlabs(size);
    usedBytes += size;
    return new HostBlock(this, address, size);
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

  private long takeLarge(long size) {
    // reuse a cached region of at most twice the size, so big regions are not pinned down by small requests
    Map.Entry<Long, List<Long>> cached = cachedLarge.ceilingEntry(size);
    if (cached != null && cached.getKey() <= 2 * size) {
      long start = cached.getValue().remove(cached.getValue().size() - 1);
      if (cached.getValue().isEmpty()) cachedLarge.remove(cached.getKey());
      return start;
    }
    return reserve(size);
  }

  /** Pins a new raw region, first giving cached large regions back to the system when the limit needs it. */
  private long reserve(long size) {
    if (reservedBytes + size > limit) releaseCachedLarge(reservedBytes + size - limit);
    if (reservedBytes + size > limit) {
      throw new OutOfMemoryError("host transfer memory limit reached: asked for " + size + " bytes with "
          + reservedBytes + " of " + limit + " bytes reserved");
    }
    long address = raw.allocate(size);
    regions.put(address, size);
    reservedBytes += size;
    return address;
  }

  private void releaseCachedLarge(long wanted) {
    long released = 0;
    Iterator<Map.Entry<Long, List<Long>>> it = cachedLarge.descendingMap().entrySet().iterator();
    while (released < wanted && it.hasNext()) {
      Map.Entry<Long, List<Long>> e = it.next();
      for (long start : e.getValue()) {
        raw.free(start, e.getKey());
        regions.remove(start);
        reservedBytes -= e.getKey();
        released += e.getKey();
      }
      it.remove();
    }
  }

  synchronized void free(long address, long size) {
    if (closed) return;
    usedBytes -= size;
    Long regionLength = regions.get(address);
    if (size > slabBytes / 2 && regionLength != null && regionLength == size) {
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
    slabFree.clear();
    cachedLarge.clear();
    reservedBytes = 0;
  }
}
