package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import io.sparkwarp.kernels.testing.MeasurementsFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.function.DoubleSupplier;
import jcuda.driver.JCudaDriver;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.VarCharVector;

/**
 * Transfer rates of the CUDA backend: raw pinned and pageable copies each way, device-to-device copy, and the
 * upload and download of a large Arrow batch (long, double, date, string of ~20 bytes) through ArrowUpload and
 * ArrowDownload. Medians of timed repetitions after warm-up; copies are timed with CUDA events, batch transfers
 * with the host clock around a synchronised stream (what a caller waits for).
 *
 * <p>Run on a GPU machine: {@code run.sh main io.sparkwarp.kernels.cuda.TransferBenchmark [rows] [json]} (default
 * 100 M rows); with a JSON path it also writes the figures for the benchmark report ({@link MeasurementsFile}).
 */
public final class TransferBenchmark {
  private static final int WARMUP = 2;
  private static final int REPEAT = 7;

  public static void main(String[] args) {
    int rows = args.length > 0 ? Integer.parseInt(args[0]) : 100_000_000;
    try (CudaBackend backend = CudaBackend.open(BackendOptions.defaults());
        CudaStream stream = backend.newStream()) {
      System.out.println("device: " + backend.description());
      MeasurementsFile figures = new MeasurementsFile("TransferBenchmark", backend.description());
      long bytes = 1L << 30;
      double pinnedH2D;
      double pinnedD2H;
      double pageableH2D;
      double pageableD2H;
      double deviceCopy;
      try (HostBlock pinned = backend.transferMemory().pool().allocate(bytes);
          DeviceBuffer device = backend.allocate(bytes, stream);
          DeviceBuffer device2 = backend.allocate(bytes, stream)) {
        long pageable = MemoryUtil.allocateMemory(bytes);
        try {
          fillRandom(pinned.address(), bytes);
          MemoryUtil.copyMemory(pinned.address(), pageable, bytes);
          CudaContext ctx = backend.context();
          pinnedH2D = rate(bytes, timed(ctx, stream, () -> ctx.check(JCudaDriver.cuMemcpyHtoDAsync(
              Pointers.device(device.address()), Pointers.host(pinned.address()), bytes, stream.handle()), "h2d")));
          pinnedD2H = rate(bytes, timed(ctx, stream, () -> ctx.check(JCudaDriver.cuMemcpyDtoHAsync(
              Pointers.host(pinned.address()), Pointers.device(device.address()), bytes, stream.handle()), "d2h")));
          pageableH2D = rate(bytes, timed(ctx, stream, () -> ctx.check(JCudaDriver.cuMemcpyHtoDAsync(
              Pointers.device(device.address()), Pointers.host(pageable), bytes, stream.handle()), "h2d")));
          pageableD2H = rate(bytes, timed(ctx, stream, () -> ctx.check(JCudaDriver.cuMemcpyDtoHAsync(
              Pointers.host(pageable), Pointers.device(device.address()), bytes, stream.handle()), "d2h")));
          // a device copy reads and writes every byte
          deviceCopy = rate(2 * bytes, timed(ctx, stream,
              () -> backend.copyDeviceToDevice(device, 0, device2, 0, bytes, stream)));
        } finally {
          MemoryUtil.freeMemory(pageable);
        }
      }
      System.out.println();
      System.out.println("| copy (1 GiB) | GB/s |");
      System.out.println("|---|---|");
      // the pinned copies are the PCIe limit of everything below; the copies themselves have none to compare with
      double pinnedLimit = Math.min(pinnedH2D, pinnedD2H);
      row(figures, "host to device, pinned", pinnedH2D, null);
      row(figures, "device to host, pinned", pinnedD2H, null);
      row(figures, "host to device, pageable", pageableH2D, pinnedLimit);
      row(figures, "device to host, pageable", pageableD2H, pinnedLimit);
      row(figures, "device to device (read + write)", deviceCopy, null);

      batchTransfers(backend, stream, rows, pinnedLimit, figures);
      if (args.length > 1) figures.write(Path.of(args[1]));
    }
  }

  private static void batchTransfers(CudaBackend backend, CudaStream stream, int rows, double pinnedLimit,
      MeasurementsFile figures) {
    BufferAllocator allocator = backend.transferMemory().arrowAllocator().newChildAllocator("bench", 0, Long.MAX_VALUE);
    List<FieldVector> vectors = makeBatch(allocator, rows);
    try {
      long hostBytes = 0;
      for (FieldVector v : vectors) {
        for (var buf : v.getFieldBuffers()) hostBytes += buf.writerIndex();
      }
      final long transferBytes = hostBytes;
      List<String> names = List.of("l", "d", "dt", "s");
      double upload = median(() -> wallMillis(() -> {
        try (DeviceBatch batch = ArrowUpload.upload(backend, vectors, stream)) {
          stream.synchronize();
        }
      }));
      double download;
      try (DeviceBatch batch = ArrowUpload.upload(backend, vectors, stream)) {
        stream.synchronize();
        download = median(() -> {
          long start = System.nanoTime();
          List<FieldVector> back;
          try (ArrowDownload d = ArrowDownload.begin(backend, batch, names, allocator, stream)) {
            back = d.complete();
          }
          double ms = (System.nanoTime() - start) / 1e6;
          Closeables.closeAll(back);
          return ms;
        });
      }
      System.out.println();
      System.out.printf(Locale.ROOT, "batch: %,d rows of (long, double, date, string ~20 B), %,d bytes of Arrow buffers%n",
          rows, transferBytes);
      System.out.println("| batch transfer | ms | GB/s | of pinned limit |");
      System.out.println("|---|---|---|---|");
      batchRow(figures, "upload (ArrowUpload, pinned Arrow vectors)", upload, transferBytes, pinnedLimit);
      batchRow(figures, "download (ArrowDownload, into pinned Arrow vectors)", download, transferBytes, pinnedLimit);
    } finally {
      Closeables.closeAll(vectors);
      allocator.close();
    }
  }

  /** The benchmark batch, built straight into transfer memory (as the plugin's transitions do). */
  static List<FieldVector> makeBatch(BufferAllocator allocator, int rows) {
    Random rnd = new Random(42);
    BigIntVector l = new BigIntVector("l", allocator);
    Float8Vector d = new Float8Vector("d", allocator);
    DateDayVector dt = new DateDayVector("dt", allocator);
    VarCharVector s = new VarCharVector("s", allocator);
    List<FieldVector> vectors = new ArrayList<>(List.of(l, d, dt, s));
    l.allocateNew(rows);
    d.allocateNew(rows);
    dt.allocateNew(rows);
    s.allocateNew(20L * rows + 64, rows);
    byte[] text = new byte[64];
    for (int i = 0; i < text.length; i++) text[i] = (byte) ('a' + rnd.nextInt(26));
    for (int i = 0; i < rows; i++) {
      if (i % 100 == 7) {
        l.setNull(i);
        d.setNull(i);
        dt.setNull(i);
        s.setNull(i);
        continue;
      }
      l.set(i, rnd.nextLong());
      d.set(i, rnd.nextDouble());
      dt.set(i, 10_000 + rnd.nextInt(3_000));
      s.setSafe(i, text, rnd.nextInt(24), 10 + rnd.nextInt(21));
    }
    for (FieldVector v : vectors) v.setValueCount(rows);
    return vectors;
  }

  private static void fillRandom(long address, long bytes) {
    Random rnd = new Random(1);
    for (long i = 0; i < bytes; i += 8) MemoryUtil.putLong(address + i, rnd.nextLong());
  }

  /** Median milliseconds of {@code op} timed with events on {@code stream}. */
  private static double timed(CudaContext ctx, CudaStream stream, Runnable op) {
    try (CudaEvent start = new CudaEvent(ctx, true); CudaEvent stop = new CudaEvent(ctx, true)) {
      return median(() -> {
        start.record(stream);
        op.run();
        stop.record(stream);
        stop.synchronize();
        return stop.millisSince(start);
      });
    }
  }

  private static double wallMillis(Runnable op) {
    long start = System.nanoTime();
    op.run();
    return (System.nanoTime() - start) / 1e6;
  }

  private static double median(DoubleSupplier measure) {
    for (int i = 0; i < WARMUP; i++) measure.getAsDouble();
    double[] ms = new double[REPEAT];
    for (int i = 0; i < REPEAT; i++) ms[i] = measure.getAsDouble();
    Arrays.sort(ms);
    return ms[REPEAT / 2];
  }

  private static double rate(long bytes, double ms) {
    return bytes / ms / 1e6;
  }

  private static void row(MeasurementsFile figures, String what, double gbs, Double limit) {
    System.out.printf(Locale.ROOT, "| %s | %.1f |%n", what, gbs);
    figures.add("copy " + what, gbs, "GB/s", limit);
  }

  private static void batchRow(MeasurementsFile figures, String what, double ms, long bytes, double limit) {
    double gbs = rate(bytes, ms);
    System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.0f%% |%n", what, ms, gbs, 100 * gbs / limit);
    figures.add("batch " + what, gbs, "GB/s", limit);
  }
}
