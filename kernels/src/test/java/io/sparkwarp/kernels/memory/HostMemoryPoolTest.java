package io.sparkwarp.kernels.memory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.util.MemoryUtil;
import org.junit.jupiter.api.Test;

class HostMemoryPoolTest {
  /** Counts raw allocations, so the tests see what the pool asks the system for. */
  static final class CountingAllocator implements RawHostAllocator {
    final Map<Long, Long> live = new HashMap<>();
    final Map<Long, Long> raw = new HashMap<>();
    int allocations;

    @Override
    public long allocate(long bytes) {
      long address = MemoryUtil.allocateMemory(bytes + 63);
      long aligned = (address + 63) & -64L;
      raw.put(aligned, address);
      live.put(aligned, bytes);
      allocations++;
      return aligned;
    }

    @Override
    public void free(long address, long bytes) {
      assertEquals(live.remove(address), bytes, "freed with the size it was allocated with");
      MemoryUtil.freeMemory(raw.remove(address));
    }

    @Override
    public boolean pinned() {
      return false;
    }
  }

  @Test
  void smallBlocksShareSlabsAndNeverOverlap() {
    CountingAllocator raw = new CountingAllocator();
    Random rnd = new Random();
    try (HostMemoryPool pool = new HostMemoryPool(raw, 1 << 20, 0)) {
      List<HostBlock> blocks = new ArrayList<>();
      for (int i = 0; i < 2000; i++) {
        blocks.add(pool.allocate(rnd.nextInt(4000)));
        if (rnd.nextInt(3) == 0) blocks.remove(rnd.nextInt(blocks.size())).close();
      }
      blocks.sort((a, b) -> Long.compare(a.address(), b.address()));
      for (int i = 1; i < blocks.size(); i++) {
        assertTrue(blocks.get(i - 1).address() + blocks.get(i - 1).size() <= blocks.get(i).address(), "overlap");
      }
      for (HostBlock b : blocks) {
        assertEquals(0, b.address() % HostMemoryPool.ALIGNMENT);
      }
      assertTrue(raw.allocations < 10, "slabs are reused: " + raw.allocations + " raw allocations");
      blocks.forEach(HostBlock::close);
      assertEquals(0, pool.usedBytes());
      // everything coalesced: one block as large as half a slab fits again without a new slab
      int before = raw.allocations;
      pool.allocate(1 << 19).close();
      assertEquals(before, raw.allocations);
    }
    assertTrue(raw.live.isEmpty(), "close gives everything back");
  }

  @Test
  void largeBlocksGetRegionsThatAreReused() {
    CountingAllocator raw = new CountingAllocator();
    try (HostMemoryPool pool = new HostMemoryPool(raw, 1 << 20, 0)) {
      HostBlock big = pool.allocate(10 << 20);
      long address = big.address();
      big.close();
      HostBlock again = pool.allocate(9 << 20);
      assertEquals(address, again.address(), "a cached region of at most twice the size is reused");
      HostBlock other = pool.allocate(3 << 20);
      assertNotEquals(address, other.address());
      again.close();
      other.close();
    }
  }

  @Test
  void aRegionReusedBySmallerRequestsIsCachedAgain() {
    CountingAllocator raw = new CountingAllocator();
    try (HostMemoryPool pool = new HostMemoryPool(raw, 1 << 20, 0)) {
      HostBlock big = pool.allocate(10 << 20);
      long address = big.address();
      big.close();
      for (int i = 0; i < 5; i++) {
        HostBlock smaller = pool.allocate((9 << 20) + i * 4096);
        assertEquals(address, smaller.address());
        smaller.close();
      }
      HostBlock again = pool.allocate(10 << 20);
      assertEquals(address, again.address(), "the region went back to the cache whole");
      again.close();
      assertEquals(1, raw.allocations);
      assertEquals(0, pool.usedBytes());
    }
  }

  /** A scan's batches: sizes a few tenths of a percent apart, in another order each time, reuse the first ones'. */
  @Test
  void nearlyEqualRequestsShareRegions() {
    CountingAllocator raw = new CountingAllocator();
    Random rnd = new Random();
    try (HostMemoryPool pool = new HostMemoryPool(raw, 1 << 20, 0)) {
      for (int round = 0; round < 5; round++) {
        List<HostBlock> blocks = new ArrayList<>();
        for (int i = 0; i < 16; i++) blocks.add(pool.allocate(9_340_000 + rnd.nextInt(60_000)));
        blocks.forEach(HostBlock::close);
      }
      assertEquals(16, raw.allocations, "only the first round pins");
      assertTrue(pool.reservedBytes() <= 16 * 10_500_000L, "classes waste at most an eighth");
    }
  }

  @Test
  void sizeClassesAreAnEighthOfAPowerOfTwoApart() {
    assertEquals(96L << 20, HostMemoryPool.sizeClass(94_600_000));
    assertEquals(64L << 20, HostMemoryPool.sizeClass(64L << 20));
    assertEquals(72L << 20, HostMemoryPool.sizeClass((64L << 20) + 1));
    for (long size = 1 << 16; size < 1L << 34; size = size * 3 / 2 + 4096) {
      long length = HostMemoryPool.sizeClass(size);
      assertTrue(length >= size && length <= size + size / 8 + HostMemoryPool.ALIGNMENT, size + " -> " + length);
    }
  }

  /** Pinning a new region does not hold the pool: another thread's request for a cached region goes ahead. */
  @Test
  void pinningDoesNotBlockOtherRequests() throws Exception {
    CountDownLatch pinning = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CountingAllocator counting = new CountingAllocator();
    RawHostAllocator slow = new RawHostAllocator() {
      @Override
      public long allocate(long bytes) {
        if (bytes > 20 << 20) {
          pinning.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
        }
        return counting.allocate(bytes);
      }

      @Override
      public void free(long address, long bytes) {
        counting.free(address, bytes);
      }

      @Override
      public boolean pinned() {
        return false;
      }
    };
    try (HostMemoryPool pool = new HostMemoryPool(slow, 1 << 20, 0)) {
      pool.allocate(10 << 20).close();  // cached
      ExecutorService other = Executors.newSingleThreadExecutor();
      try {
        Future<HostBlock> big = other.submit(() -> pool.allocate(30 << 20));
        assertTrue(pinning.await(10, TimeUnit.SECONDS));
        HostBlock cached = pool.allocate(10 << 20);  // would wait forever if the pin held the lock
        HostBlock small = pool.allocate(1000);
        release.countDown();
        big.get(10, TimeUnit.SECONDS).close();
        cached.close();
        small.close();
      } finally {
        release.countDown();
        other.shutdownNow();
      }
    }
  }

  @Test
  void theLimitReleasesCachedRegionsBeforeFailing() {
    CountingAllocator raw = new CountingAllocator();
    try (HostMemoryPool pool = new HostMemoryPool(raw, 1 << 20, 16 << 20)) {
      pool.allocate(10 << 20).close();  // cached
      HostBlock b = pool.allocate(4 << 20);  // too small to reuse the cached 10 MiB region
      HostBlock c = pool.allocate(11 << 20);  // needs the cached region given back first
      assertTrue(pool.reservedBytes() <= 16 << 20);
      assertThrows(OutOfMemoryError.class, () -> pool.allocate(8 << 20));
      b.close();
      c.close();
    }
  }
}
