package io.sparkwarp.kernels.parquet;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.cuda.CudaBackend;
import io.sparkwarp.kernels.host.HostBackend;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.testing.BenchmarkClock;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;

/**
 * Device-resident Parquet microbenchmark: Snappy, LZ4_RAW and ZSTD (level 3, parquet-mr's default) decompression of {@code scale} x 512 MiB of output
 * (text-like words mixed with runs and noise, as pages of 64 KiB and of 1 MiB, parquet-mr's default page size; the
 * PLAIN pages of a sorted int64 column, as l_orderkey's) in GB/s of output, and of a single 1 MiB page of each (one warp's latency);
 * then page decoding of 20 M rows (scaled) of a dictionary-encoded long column and of a PLAIN string column, in
 * rows/s and GB/s of output. Times: CUDA events around the whole primitive call (table upload, launches, the status
 * read-back), median of 5 after a warm-up. Each result is checked against the host reference first.
 *
 * <p>Run: {@code run.sh main io.sparkwarp.kernels.parquet.ParquetMicrobenchmark [scale=1.0] [--host] [--decode]};
 * {@code --decode} runs the decoding cases alone.
 */
public final class ParquetMicrobenchmark {
  private static final int REPEAT = 5;
  /** LzInputs kinds: text-like words, runs and noise; words alone; the PLAIN page of a sorted int64 column. */
  private static final int MIXED = 3;
  private static final int WORDS = 2;
  private static final int SORTED_KEYS = 4;

  private ParquetMicrobenchmark() {}

  public static void main(String[] args) {
    double scale = args.length > 0 && !args[0].startsWith("--") ? Double.parseDouble(args[0]) : 1.0;
    List<String> flags = Arrays.asList(args);
    boolean onHost = flags.contains("--host");
    boolean decodeOnly = flags.contains("--decode");
    try (Backend backend = onHost ? new HostBackend(BackendOptions.defaults()) : CudaBackend.open(BackendOptions.defaults());
        Backend reference = new HostBackend(BackendOptions.defaults());
        DeviceStream stream = backend.newStream();
        BenchmarkClock clock = BenchmarkClock.of(backend, stream);
        RootAllocator allocator = new RootAllocator()) {
      System.out.println("parquet microbenchmark on " + backend.description() + ", scale " + scale);
      Random rnd = new Random(42);
      long total = (long) (scale * (512L << 20));
      // {kind, output bytes, page bytes}: many pages (the grid full), then one page (one warp's latency)
      long[][] cases = {{MIXED, total, 64 << 10}, {MIXED, total, 1 << 20}, {MIXED, 1 << 20, 1 << 20},
          {SORTED_KEYS, total, 1 << 20}, {SORTED_KEYS, 1 << 20, 1 << 20}};
      CompressedBlocks.Codec[] codecs = decodeOnly ? new CompressedBlocks.Codec[0] : new CompressedBlocks.Codec[] {
          CompressedBlocks.Codec.SNAPPY, CompressedBlocks.Codec.LZ4_RAW, CompressedBlocks.Codec.ZSTD};
      for (CompressedBlocks.Codec codec : codecs) {
        for (long[] pageCase : cases) {
          int kind = (int) pageCase[0];
          int pageBytes = (int) pageCase[2];
          EncodedBlocks c = pages(codec, pageCase[1], pageBytes, kind, rnd);
          try (DeviceStream s = reference.newStream()) {
            if (!Arrays.equals(c.decompress(reference, s), c.decompress(backend, stream))) {
              throw new AssertionError("decompressed bytes differ from the host reference");
            }
          }
          try (DeviceBuffer in = ParquetTesting.upload(backend, c.input(), stream);
              DeviceBuffer out = backend.allocate(c.outputBytes(), stream)) {
            double ms = clock.median(REPEAT, () -> backend.parquet().decompress(in, out, c.blocks(), stream));
            System.out.printf(Locale.ROOT, "%s %s, %4d KiB pages: %d pages, %.0f MiB -> %.0f MiB, %.2f ms, %.1f "
                + "GB/s of output%n", codec.name().toLowerCase(Locale.ROOT),
                kind == MIXED ? "words, runs, noise" : "sorted int64 keys", pageBytes >> 10, c.blocks().count(),
                c.input().length / 1048576.0, c.outputBytes() / 1048576.0, ms, c.outputBytes() / ms / 1e6);
          }
        }
      }
      // {rows, rows a page}: pages of up to 3000 rows at random (the grid full), then parquet-mr's pages of 1 MiB
      // and more: all of a column's, and about the twenty of one lineitem column in a scan batch at SF10
      int rows = (int) (scale * 20_000_000);
      int[][] decodeCases = {{rows, 0}, {rows, 1 << 17}, {20 << 17, 1 << 17}};
      for (int[] decodeCase : decodeCases) {
        for (DeviceType type : new DeviceType[] {DeviceType.LONG, DeviceType.STRING}) {
          decode(backend, stream, clock, allocator, type, decodeCase[0], decodeCase[1], rnd);
        }
      }
    }
  }

  /** Decodes {@code rows} nullable values of {@code type} in pages of {@code pageRows} rows (0: at random). */
  private static void decode(Backend backend, DeviceStream stream, BenchmarkClock clock, RootAllocator allocator,
      DeviceType type, int rows, int pageRows, Random rnd) {
    try (FieldVector values = ParquetTesting.values(type, rows, true, rnd, allocator)) {
      EncodedColumn c = EncodedColumn.encode(values, EncodedColumn.specFor(type, rnd), rnd, null, pageRows);
      try (DeviceBuffer in = ParquetTesting.upload(backend, c.input, stream);
          DeviceBuffer pages = backend.allocate(c.pages.length, stream)) {
        backend.parquet().decompress(in, pages, c.blocks, stream);
        long[] bytes = new long[1];
        double ms = clock.median(REPEAT, () -> {
          try (DeviceColumn column = backend.parquet().decode(pages, c.table, c.spec, stream)) {
            bytes[0] = column.deviceBytes();
          }
        });
        System.out.printf(Locale.ROOT, "decode %s: %d rows in %d pages, %.2f ms, %.2f G rows/s, %.1f GB/s of "
            + "output%n", type, rows, c.table.count(), ms, rows / ms / 1e6, bytes[0] / ms / 1e6);
      }
    }
  }

  /**
   * About {@code total} bytes as pages of {@code pageBytes} of LzInputs kind {@code kind}, compressed in
   * {@code codec} (TestCodecs: snappy-java, lz4-java, zstd-jni at level 3 in one frame).
   */
  private static EncodedBlocks pages(CompressedBlocks.Codec codec, long total, int pageBytes, int kind, Random rnd) {
    ByteArrayOutputStream in = new ByteArrayOutputStream();
    CompressedBlocks blocks = new CompressedBlocks();
    long out = 0;
    byte[] page = LzInputs.of(kind, pageBytes, rnd);
    byte[] packed = compress(codec, page, rnd);
    while (out < total) {
      // a fresh page now and then, so the input is not one page repeated (cheap: most pages are reused)
      if (out > 0 && rnd.nextInt(16) == 0) {
        page = LzInputs.of(kind == MIXED && rnd.nextBoolean() ? WORDS : kind, pageBytes, rnd);
        packed = compress(codec, page, rnd);
      }
      blocks.add(in.size(), packed.length, out, page.length, codec);
      in.writeBytes(packed);
      out += page.length;
    }
    return new EncodedBlocks(in.toByteArray(), out, blocks);
  }

  private static byte[] compress(CompressedBlocks.Codec codec, byte[] page, Random rnd) {
    return codec == CompressedBlocks.Codec.ZSTD ? TestCodecs.zstd(page, 3, true, false)
        : TestCodecs.compress(codec, page, rnd);
  }
}
