package io.sparkwarp.kernels.expr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import io.sparkwarp.kernels.testing.CudaVsHostTestBase;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Random expression programs over random batches (every device type, nulls, NaN, -0.0, extremes, multi-byte
 * strings) on the CUDA kernels and on the host reference: the same output bytes (validity, offsets, values), or
 * the same error (kind, row, instruction, operands). Sizes straddle warp boundaries.
 */
@Tag("gpu")
class CudaExpressionsMatchHostTest extends CudaVsHostTestBase {
  static final int[] SIZES = {0, 1, 31, 32, 33, 1000, 100_003};
  static final int PROGRAMS_PER_SIZE = 25;

  @Test
  void projectionsMatch() {
    forEachBatch((programs, batches) -> {
      ExprProgram p = programs.projection();
      assertSameOutcome(p, batches, (backend, batch, stream) -> backend.expressions().project(p, batch, stream));
    });
  }

  @Test
  void filtersMatch() {
    forEachBatch((programs, batches) -> {
      ExprProgram p = programs.predicate();
      assertSameOutcome(p, batches, (backend, batch, stream) -> backend.expressions().filter(p, batch, stream)
          .columns());
    });
  }

  /** The same batch on both backends, with their streams. */
  private record Batches(DeviceBatch onCuda, DeviceStream cudaStream, DeviceBatch onHost, DeviceStream hostStream) {}

  private interface Run {
    List<DeviceColumn> apply(Backend backend, DeviceBatch batch, DeviceStream stream);
  }

  private interface Body {
    void accept(RandomPrograms programs, Batches batches);
  }

  private void forEachBatch(Body body) {
    List<DeviceType> types = RandomInputs.types();
    RandomPrograms programs = new RandomPrograms(rnd, types);
    try (DeviceStream cs = cuda.newStream(); DeviceStream hs = host.newStream()) {
      for (int n : SIZES) {
        List<FieldVector> vectors = RandomInputs.vectors(types, n, rnd, allocator);
        try (DeviceBatch onCuda = ArrowUpload.upload(cuda, vectors, cs);
            DeviceBatch onHost = ArrowUpload.upload(host, vectors, hs)) {
          cs.synchronize();
          for (int i = 0; i < PROGRAMS_PER_SIZE; i++) body.accept(programs, new Batches(onCuda, cs, onHost, hs));
        } finally {
          Closeables.closeAll(vectors);
        }
      }
    }
  }

  private void assertSameOutcome(ExprProgram program, Batches b, Run run) {
    Object expected = outcome(host, b.onHost(), b.hostStream(), run);
    Object actual = outcome(cuda, b.onCuda(), b.cudaStream(), run);
    String what = b.onHost().rowCount() + " rows, " + program;
    if (expected instanceof List<?> e && actual instanceof List<?> a) {
      assertEquals(e.size(), a.size(), what);
      for (int i = 0; i < e.size(); i++) {
        assertArrayEquals((byte[]) e.get(i), (byte[]) a.get(i), "buffer " + i + ", " + what);
      }
    } else {
      assertEquals(expected, actual, what);
    }
  }

  /** The result's buffers as bytes (validity, offsets, values per column), or the error's facts as a string. */
  private static Object outcome(Backend backend, DeviceBatch batch, DeviceStream stream, Run run) {
    List<DeviceColumn> columns;
    try {
      columns = run.apply(backend, batch, stream);
    } catch (ExpressionErrorException e) {
      return e.kind() + " at row " + e.row() + " in instruction " + e.site() + " with " + e.operands();
    }
    try {
      List<byte[]> buffers = new ArrayList<>();
      for (DeviceColumn c : columns) {
        int rows = c.rowCount();
        buffers.add(bytes(backend, c.validity(), (rows + 7) / 8, stream));
        if (c.type().isVariableWidth()) buffers.add(bytes(backend, c.offsets(), 4L * (rows + 1), stream));
        buffers.add(bytes(backend, c.data(), c.dataBytes(), stream));
      }
      return buffers;
    } finally {
      Closeables.closeAll(columns);
    }
  }

  private static byte[] bytes(Backend backend, DeviceBuffer buffer, long length, DeviceStream stream) {
    byte[] out = new byte[(int) length];
    try (HostBlock staging = backend.transferMemory().pool().allocate(Math.max(1, length))) {
      backend.copyDeviceToHost(buffer, 0, staging.address(), length, stream);
      stream.synchronize();
      MemoryUtil.copyFromMemory(staging.address(), out, 0, length);
    }
    return out;
  }
}
