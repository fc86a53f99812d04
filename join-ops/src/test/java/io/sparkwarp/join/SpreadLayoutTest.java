package io.sparkwarp.join;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.BatchSlicer;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.host.HostBackend;
import io.sparkwarp.kernels.join.JoinKeys;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.Test;

/** Which keys travel as a column of the rows and which appended, and the views over a combined batch. */
class SpreadLayoutTest {
  @Test
  void aKeyThatIsAColumnOfEveryShareTravelsOnceOthersAreAppended() {
    try (HostBackend host = new HostBackend(BackendOptions.defaults()); DeviceStream stream = host.newStream();
        RootAllocator allocator = new RootAllocator();
        DeviceBatch a = SideRows.random(new Random(1), 20, 5).upload(host, allocator, stream);
        DeviceBatch b = SideRows.random(new Random(2), 30, 5).upload(host, allocator, stream);
        DeviceBatch computed = BatchSlicer.slice(host, b, 0, b.rowCount(), stream)) {
      List<Boolean> safe = List.of(false, true);
      // shares a and b (none on the middle device): key 0 is each share's KEY column, key 1 each one's VALUE
      JoinKeys keysA = new JoinKeys(List.of(a.column(SideRows.KEY), a.column(SideRows.VALUE)), safe);
      JoinKeys keysB = new JoinKeys(List.of(b.column(SideRows.KEY), b.column(SideRows.VALUE)), safe);
      SpreadLayout shared = SpreadLayout.common(Arrays.asList(a, null, b), Arrays.asList(keysA, null, keysB));
      assertEquals(3, shared.rowColumns());
      assertArrayEquals(new int[] {SideRows.KEY, SideRows.VALUE}, shared.keyColumns());
      DeviceBatch combined = shared.combine(a, keysA);
      assertEquals(a.columns(), combined.columns(), "nothing appended");
      assertEquals(a.columns(), shared.rows(combined).columns());
      assertEquals(keysA.columns(), shared.keys(combined, safe).columns());
      assertEquals(safe, shared.keys(combined, safe).nullSafe());

      // share b's second key is a column of its own (computed), a's is a.VALUE: appended for both
      JoinKeys keysComputed = new JoinKeys(List.of(b.column(SideRows.KEY), computed.column(SideRows.NAME)), safe);
      SpreadLayout mixed = SpreadLayout.common(List.of(a, b), List.of(keysA, keysComputed));
      assertArrayEquals(new int[] {SideRows.KEY, 3}, mixed.keyColumns());
      DeviceBatch withKey = mixed.combine(b, keysComputed);
      assertEquals(4, withKey.columnCount());
      assertSame(computed.column(SideRows.NAME), withKey.column(3));
      assertEquals(b.columns(), mixed.rows(withKey).columns());
      assertEquals(keysComputed.columns(), mixed.keys(withKey, safe).columns());
      // different columns of their shares: appended too
      JoinKeys swapped = new JoinKeys(List.of(b.column(SideRows.VALUE), b.column(SideRows.KEY)), safe);
      assertArrayEquals(new int[] {3, 4}, SpreadLayout.common(List.of(a, b), List.of(keysA, swapped)).keyColumns());
      assertThrows(IllegalArgumentException.class,
          () -> SpreadLayout.common(Arrays.asList(null, null), Arrays.asList(null, null)));
    }
  }
}
