package io.sparkwarp.kernels.sort;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.testing.CudaVsHostTestBase;
import java.util.ArrayList;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * RunMerge on CUDA (its concatenation, sort, gather and slices all on the device) against the stable order of the
 * whole batch, as HostRunMergeTest checks the host backend: fresh random batches of every type with ties, cut into
 * runs served in pieces, from one row to many thousand, with keys all equal in one case; no device memory kept.
 */
@Tag("gpu")
class CudaRunMergeMatchesHostTest extends CudaVsHostTestBase {
  private static final int[] SIZES = {1, 33, 4097, 200_003};

  @Test
  void mergedRunsAreTheStableSortOfTheirConcatenation() {
    List<DeviceType> types = SortTesting.types();
    for (int rows : SIZES) {
      for (int trial = 0; trial < 6; trial++) {
        List<FieldVector> columns = new ArrayList<>();
        try {
          for (int c = 0; c < 3; c++) {
            DeviceType type = types.get(rnd.nextInt(types.size()));
            columns.add(trial == 0 ? SortTesting.keyColumn(type, rows, 1, 0, rnd, allocator)
                : SortTesting.randomKeyColumn(type, rows, rnd, allocator));
          }
          List<SortKey> keys = SortTesting.randomKeys(columns.size(), 3, rnd);
          String what = rows + " rows by " + SortTesting.describe(columns, keys);
          try (DeviceStream cs = cuda.newStream()) {
            long before = cuda.deviceMemory().bytesInUse();
            try (DeviceBatch batch = ArrowUpload.upload(cuda, columns, cs)) {
              int maxPiece = Math.max(1, rows / 20);
              SortTesting.assertRows(columns, SortTesting.expectedOrder(columns, keys, rows), cuda,
                  SortTesting.mergedInRuns(cuda, batch, keys, 1 + rnd.nextInt(16), maxPiece, rnd, cs), allocator, cs,
                  what);
            }
            cs.synchronize();
            assertEquals(before, cuda.deviceMemory().bytesInUse(), what + ": device memory left held");
          }
        } finally {
          Closeables.closeAll(columns);
        }
      }
    }
  }
}
