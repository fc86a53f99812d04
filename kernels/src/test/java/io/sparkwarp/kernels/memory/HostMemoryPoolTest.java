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
