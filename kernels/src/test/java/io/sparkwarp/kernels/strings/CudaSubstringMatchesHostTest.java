package io.sparkwarp.kernels.strings;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.testing.CudaVsHostTestBase;
import io.sparkwarp.kernels.testing.VectorAssertions;
import java.util.List;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VarCharVector;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The substring kernels against the host reference on fresh random input (multi-byte UTF-8, bytes that are not
 * UTF-8, nulls, empty strings), for every argument pair of {@link SubstringTesting#ARGUMENTS}: every row's bytes
 * and validity equal, at sizes around warp boundaries up to 1 M rows and with strings of tens of KB (walked by a
 * warp each rather than a lane).
 */
@Tag("gpu")
class CudaSubstringMatchesHostTest extends CudaVsHostTestBase {
  private static final int[] SIZES = {0, 1, 31, 32, 33, 4097, 1_000_000};

  @Test
  void everyArgumentPairMatchesTheHost() {
    for (int n : SIZES) {
      try (VarCharVector v = SubstringTesting.column(n, 1000, rnd, allocator)) {
        assertSubstringsMatch(v, n + " rows");
      }
    }
    try (VarCharVector v = SubstringTesting.column(300, 40_000, rnd, allocator)) {
      assertSubstringsMatch(v, "300 long rows");
    }
  }

  private void assertSubstringsMatch(VarCharVector v, String what) {
    try (DeviceStream cs = cuda.newStream(); DeviceStream hs = host.newStream();
        DeviceColumn c = ArrowUpload.upload(cuda, v, cs);
        DeviceColumn h = ArrowUpload.upload(host, v, hs)) {
      for (int[] args : SubstringTesting.ARGUMENTS) {
        String label = "substring(s, " + args[0] + ", " + args[1] + "), " + what;
        List<FieldVector> expected = substring(host, h, args, hs);
        List<FieldVector> actual = substring(cuda, c, args, cs);
        try {
          VectorAssertions.assertVectorEquals(expected.get(0), actual.get(0), label);
        } finally {
          Closeables.closeAll(expected);
          Closeables.closeAll(actual);
        }
      }
    }
  }

  private List<FieldVector> substring(Backend backend, DeviceColumn in, int[] args, DeviceStream stream) {
    try (DeviceBatch out = new DeviceBatch(List.of(backend.strings().substring(in, args[0], args[1], stream)),
        in.rowCount())) {
      return ArrowDownload.begin(backend, out, List.of("s"), allocator, stream).complete();
    }
  }
}
