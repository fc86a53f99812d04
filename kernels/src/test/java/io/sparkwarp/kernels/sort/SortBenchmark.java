package io.sparkwarp.kernels.sort;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.Backends;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import io.sparkwarp.kernels.testing.BenchmarkClock;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * The device sort's speed (issue 14): the sort order of N random int64 keys, of the same below 2^26, and of N
 * (int64, string of 4 to 20 ASCII bytes) keys, device-resident, all valid. CUDA events, one warm-up, median of 3; M keys/s. The reference is
 * CUB's DeviceRadixSort on the same GPU, run by {@code kernels/src/test/cuda/bench/cub_radix_sort.cu}.
 *
 * <p>Run on a GPU machine: {@code run.sh main io.sparkwarp.kernels.sort.SortBenchmark [rows]} (default 100 M).
 */
public final class SortBenchmark {
  private static final int REPEAT = 3;

  public static void main(String[] args) {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 100_000_000;
    try (Backend backend = Backends.open(BackendKind.CUDA, BackendOptions.defaults());
        DeviceStream stream = backend.newStream();
        BenchmarkClock clock = BenchmarkClock.of(backend, stream);
        DeviceBatch batch = new DeviceBatch(List.of(longs(backend, rows, -1L, stream), strings(backend, rows, stream),
            longs(backend, rows, (1L << 26) - 1, stream)), rows)) {
      System.out.println("device: " + backend.description() + ", " + rows + " rows");
      System.out.println("| keys | ms | M keys/s |");
      System.out.println("|---|---|---|");
      time(clock, backend, batch, List.of(new SortKey(0, true, true)), rows, "int64", stream);
      time(clock, backend, batch, List.of(new SortKey(2, true, true)), rows, "int64 below 2^26", stream);
      time(clock, backend, batch, List.of(new SortKey(0, true, true), new SortKey(1, true, true)), rows,
          "(int64, string)", stream);
      time(clock, backend, batch, List.of(new SortKey(1, false, false)), rows, "string desc", stream);
    }
  }

  private static void time(BenchmarkClock clock, Backend backend, DeviceBatch batch, List<SortKey> keys, int rows,
      String what, DeviceStream stream) {
    double ms = clock.median(REPEAT, () -> {
      try (DeviceBuffer order = DeviceSort.order(backend, batch, keys, stream)) {
        stream.synchronize();
      }
    });
    System.out.printf("| %s | %.1f | %.0f |%n", what, ms, rows / ms / 1e3);
  }

  /** Random longs, masked by {@code bits}: below 2^26 like TPC-H's order keys at SF10, whose top bytes never vary. */
  private static DeviceColumn longs(Backend backend, int rows, long bits, DeviceStream stream) {
    DeviceColumn column = DeviceColumn.allocate(backend, DeviceType.LONG, rows, 0, stream);
    SplittableRandom random = new SplittableRandom(1);
    try (HostBlock staging = backend.transferMemory().pool().allocate(8L * rows)) {
      for (long i = 0; i < rows; i++) MemoryUtil.putLong(staging.address() + 8 * i, random.nextLong() & bits);
      backend.copyHostToDevice(staging.address(), column.data(), 0, 8L * rows, stream);
      backend.fill(column.validity(), 0, column.validity().size(), (byte) 0xFF, stream);
      stream.synchronize();
    }
    return column;
  }

  /** Strings of 4 to 20 letters, offsets built on the host. */
  private static DeviceColumn strings(Backend backend, int rows, DeviceStream stream) {
    SplittableRandom random = new SplittableRandom(2);
    int[] lengths = new int[rows];
    long total = 0;
    for (int i = 0; i < rows; i++) {
      lengths[i] = 4 + random.nextInt(17);
      total += lengths[i];
    }
    DeviceColumn column = DeviceColumn.allocate(backend, DeviceType.STRING, rows, total, stream);
    try (HostBlock offsets = backend.transferMemory().pool().allocate(4L * (rows + 1));
        HostBlock data = backend.transferMemory().pool().allocate(total)) {
      long at = 0;
      for (int i = 0; i < rows; i++) {
        MemoryUtil.putInt(offsets.address() + 4L * i, (int) at);
        for (int k = 0; k < lengths[i]; k++) MemoryUtil.putByte(data.address() + at++, (byte) ('a' + random.nextInt(26)));
      }
      MemoryUtil.putInt(offsets.address() + 4L * rows, (int) at);
      backend.copyHostToDevice(offsets.address(), column.offsets(), 0, 4L * (rows + 1), stream);
      backend.copyHostToDevice(data.address(), column.data(), 0, total, stream);
      backend.fill(column.validity(), 0, column.validity().size(), (byte) 0xFF, stream);
      stream.synchronize();
    }
    return column;
  }
}
