package io.sparkwarp.kernels.strings;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.cuda.CudaBackend;
import io.sparkwarp.kernels.host.HostBackend;
import io.sparkwarp.kernels.memory.HostBlock;
import io.sparkwarp.kernels.testing.BenchmarkClock;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * String predicate microbenchmark over {@link StringPrimitives} (Sitaridi ch. 5, DogQC's Lane Refill; notes:
 * shared/notes/sitaridi-strings-gompresso.md, dogqc.md): synthetic comment-like columns of TPC-H words, all valid,
 *
 * <ol>
 *   <li>short strings: 50 M rows of 10 to 44 bytes (27 on average, like o_comment's words);
 *   <li>long strings: 250 K rows of 3 000 to 5 200 bytes (about 4 KB).
 * </ol>
 *
 * <p>For each column: the build time of both pivoted layouts and their size, then every matcher over every layout,
 * with and without Lane Refill (short strings: 'furiously%', '%special%', '%special%requests%', and '%requests%' as a
 * 9-state DFA; long strings: phrases instead of words, which would be everywhere): time, GB/s of the column's
 * string bytes, lane utilisation (active lanes / 32 x warp iterations) and the share of rows selected. Times are
 * medians of {@value #REPEAT} runs after one warm-up, measured with CUDA events around the whole primitive call
 * (program upload, output allocation and zeroing, launch, the counter read-back it synchronises on). Each
 * configuration's answers for 20 000 random rows are checked against the matcher.
 *
 * <p>Run: {@code run.sh main io.sparkwarp.kernels.strings.StringMatchMicrobenchmark [scale=1.0] [--host]}; scale
 * multiplies the row counts (0.01 for a quick run); {@code --host} runs the Java reference backend with wall-clock
 * timing (a smoke test of the code path; use scale 0.001).
 */
public final class StringMatchMicrobenchmark {
  private static final int REPEAT = 5;
  private static final int CHECKED_ROWS = 20_000;
  private static final int GEN_BLOCK = 1 << 14;
  private static final String[] WORDS = {"furiously", "carefully", "quickly", "blithely", "slyly", "ironic", "final",
      "pending", "regular", "express", "special", "bold", "even", "silent", "unusual", "requests", "deposits",
      "accounts", "packages", "instructions", "theodolites", "foxes", "pinto", "beans", "dependencies", "platelets",
      "asymptotes", "sleep", "haggle", "nag", "wake", "cajole", "boost", "detect", "integrate", "among", "above",
      "across", "the", "about", "according", "to"};

  private final Backend backend;
  private final DeviceStream stream;
  private final BenchmarkClock clock;
  private boolean failed;

  private StringMatchMicrobenchmark(Backend backend, DeviceStream stream, BenchmarkClock clock) {
    this.backend = backend;
    this.stream = stream;
    this.clock = clock;
  }

  public static void main(String[] args) {
    double scale = 1.0;
    boolean host = false;
    for (String a : args) {
      if (a.equals("--host")) host = true;
      else scale = Double.parseDouble(a);
    }
    if (!(scale > 0 && scale <= 1)) throw new IllegalArgumentException("scale must be in (0, 1], not " + scale);
    long t0 = System.nanoTime();
    boolean ok;
    try (Backend backend = host ? new HostBackend(BackendOptions.defaults())
        : CudaBackend.open(BackendOptions.defaults())) {
      DeviceStream stream = backend.newStream();
      try (BenchmarkClock clock = BenchmarkClock.of(backend, stream)) {
        System.out.printf(Locale.ROOT, "# String match microbenchmark%n%nmachine: %s; scale %s; medians of %d runs "
            + "after 1 warm-up, %s%n", backend.description(), scale, REPEAT,
            host ? "wall clock (host reference backend: no lanes, times are not GPU figures)"
                : "CUDA events around each primitive call");
        StringMatchMicrobenchmark bench = new StringMatchMicrobenchmark(backend, stream, clock);
        bench.section("Short strings", Math.max(1, (int) (50_000_000 * scale)), 10, 44, shortMatchers());
        bench.section("Long strings", Math.max(1, (int) (250_000 * scale)), 3000, 5200, longMatchers());
        ok = !bench.failed;
      } finally {
        stream.close();
      }
      long leaked = backend.deviceMemory().bytesInUse();
      System.out.printf(Locale.ROOT, "%nDevice memory peak %.2f GiB, %d bytes still held%s; total %.1f s%n",
          backend.deviceMemory().peakBytes() / (double) (1L << 30), leaked, leaked == 0 ? "" : " (LEAK)",
          (System.nanoTime() - t0) / 1e9);
      ok &= leaked == 0;
    }
    if (!ok) {
      System.out.println("FAILED: see MISMATCH or the errors above");
      System.exit(1);
    }
  }

  /** A generated column in pinned memory and on the device. */
  private record Column(HostBlock offsets, HostBlock bytes, DeviceColumn device, int rows, long dataBytes)
      implements AutoCloseable {
    byte[] row(int r) {
      int begin = MemoryUtil.getInt(offsets.address() + 4L * r);
      int end = MemoryUtil.getInt(offsets.address() + 4L * r + 4);
      byte[] out = new byte[end - begin];
      MemoryUtil.copyFromMemory(bytes.address() + begin, out, 0, out.length);
      return out;
    }

    @Override
    public void close() {
      device.close();
      bytes.close();
      offsets.close();
    }
  }

  private void section(String title, int rows, int minLength, int maxLength, List<StringMatcher> matchers) {
    try (Column column = generate(rows, minLength, maxLength, 0x5EED + rows)) {
      System.out.printf(Locale.ROOT, "%n## %s: %,d rows, %d to %d bytes, %.2f GB of string bytes%n%n", title, rows,
          minLength, maxLength, column.dataBytes / 1e9);
      System.out.println("| layout | build ms | GB/s | layout GB | padding |");
      System.out.println("|---|---|---|---|---|");
      PivotedStrings pivoted = buildLayout(column, StringLayout.PIVOTED);
      try (PivotedStrings self = buildLayout(column, StringLayout.SELF_PIVOTED);
          PivotedStrings p = pivoted) {
        System.out.println();
        System.out.println("| matcher | layout | refill | ms | GB/s | lanes | selected | check |");
        System.out.println("|---|---|---|---|---|---|---|---|");
        for (StringMatcher m : matchers) {
          for (PivotedStrings layout : Arrays.asList(null, p, self)) {
            if (layout == self && m instanceof DfaMatcher) continue;
            for (boolean refill : new boolean[] {false, true}) matchRow(column, m, layout, refill);
          }
        }
      }
    } catch (RuntimeException | OutOfMemoryError e) {
      failed = true;
      System.out.println("\n" + title + " FAILED: " + e);
      e.printStackTrace(System.out);
    }
  }

  /** Words: selective over 27-byte strings (a word occurs in about 8% of them). */
  private static List<StringMatcher> shortMatchers() {
    return List.of(SegmentMatcher.startsWith(utf8("furiously")), SegmentMatcher.contains(utf8("special")),
        SegmentMatcher.of(new byte[0], List.of(utf8("special"), utf8("requests")), new byte[0]),
        StringTesting.containsDfa(utf8("requests")));
  }

  /** Phrases: in 4 KB of these words a single word is everywhere, a three-word phrase in about 1% of the rows. */
  private static List<StringMatcher> longMatchers() {
    return List.of(SegmentMatcher.startsWith(utf8("furiously")),
        SegmentMatcher.contains(utf8("special packages sleep")),
        SegmentMatcher.of(new byte[0], List.of(utf8("special packages"), utf8("ironic foxes")), new byte[0]),
        StringTesting.containsDfa(utf8("requests foxes wake")));
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private PivotedStrings buildLayout(Column column, StringLayout layout) {
    PivotedStrings[] last = new PivotedStrings[1];
    double ms = median(() -> {
      if (last[0] != null) last[0].close();
      last[0] = backend.strings().pivot(column.device, layout, stream);
    });
    PivotedStrings built = last[0];
    System.out.printf(Locale.ROOT, "| %s | %.2f | %.1f | %.2f | %.0f%% |%n", layout, ms, column.dataBytes / ms / 1e6,
        built.dataBytes() / 1e9, 100.0 * (built.dataBytes() - column.dataBytes) / Math.max(1, column.dataBytes));
    return built;
  }

  private void matchRow(Column column, StringMatcher m, PivotedStrings layout, boolean refill) {
    MatchResult[] last = new MatchResult[1];
    double ms = median(() -> {
      if (last[0] != null) last[0].close();
      last[0] = backend.strings().match(column.device, layout, m, refill, stream);
    });
    try (MatchResult r = last[0]) {
      byte[] bits = StringTesting.bytes(backend, r.matches().data(), (column.rows + 7) / 8, stream);
      long selected = 0;
      for (byte b : bits) selected += Integer.bitCount(b & 0xff);
      String check = check(column, m, bits);
      if (!check.equals("ok")) failed = true;
      System.out.printf(Locale.ROOT, "| %s | %s | %s | %.3f | %.1f | %s | %.2f%% | %s |%n", m.describe(), r.layout(),
          refill ? "yes" : "no", ms, column.dataBytes / ms / 1e6,
          Double.isNaN(r.laneUtilisation()) ? "-" : String.format(Locale.ROOT, "%.2f", r.laneUtilisation()),
          100.0 * selected / column.rows, check);
    }
  }

  /** "ok", or MISMATCH naming the first of {@value #CHECKED_ROWS} random rows whose answer is wrong. */
  private static String check(Column column, StringMatcher m, byte[] bits) {
    SplittableRandom rnd = new SplittableRandom(column.rows);
    for (int i = 0; i < Math.min(CHECKED_ROWS, column.rows); i++) {
      int r = rnd.nextInt(column.rows);
      byte[] s = column.row(r);
      boolean expected = m.matches(s, 0, s.length);
      if (((bits[r / 8] >> (r % 8) & 1) != 0) != expected) return "MISMATCH at row " + r + ": expected " + expected;
    }
    return "ok";
  }

  /** Median milliseconds of {@value #REPEAT} runs after a warm-up. */
  private double median(Runnable op) {
    return clock.median(REPEAT, op);
  }

  // ---- Data ----

  /**
   * Rows of TPC-H words separated by spaces, cut to a length drawn uniformly from [minLength, maxLength], each row
   * from its own random stream (so lengths can be drawn again in parallel), in pinned memory and uploaded.
   */
  private Column generate(int rows, int minLength, int maxLength, long seed) {
    HostBlock offsets = backend.transferMemory().pool().allocate(4L * (rows + 1));
    HostBlock bytes = null;
    try {
      long total = 0;
      MemoryUtil.putInt(offsets.address(), 0);
      for (int r = 0; r < rows; r++) {
        total += length(seed, r, minLength, maxLength);
        if (total > Integer.MAX_VALUE) throw new IllegalStateException("the column exceeds 2 GiB of string bytes");
        MemoryUtil.putInt(offsets.address() + 4L * (r + 1), (int) total);
      }
      long dataBytes = total;
      HostBlock data = bytes = backend.transferMemory().pool().allocate(Math.max(1, dataBytes));
      IntStream.range(0, (rows + GEN_BLOCK - 1) / GEN_BLOCK).parallel().forEach(block -> {
        byte[][] words = Arrays.stream(WORDS).map(StringMatchMicrobenchmark::utf8).toArray(byte[][]::new);
        for (int r = block * GEN_BLOCK; r < Math.min(rows, (block + 1) * GEN_BLOCK); r++) {
          SplittableRandom rnd = rowRandom(seed, r);
          int n = minLength + rnd.nextInt(maxLength - minLength + 1);
          long at = data.address() + MemoryUtil.getInt(offsets.address() + 4L * r);
          for (int i = 0; i < n; ) {
            byte[] w = words[rnd.nextInt(words.length)];
            int take = Math.min(w.length, n - i);
            MemoryUtil.copyToMemory(w, 0, at + i, take);
            i += take;
            if (i < n) MemoryUtil.putByte(at + i++, (byte) ' ');
          }
        }
      });
      DeviceColumn device = DeviceColumn.allocate(backend, DeviceType.STRING, rows, dataBytes, stream);
      backend.copyHostToDevice(offsets.address(), device.offsets(), 0, 4L * (rows + 1), stream);
      backend.copyHostToDevice(data.address(), device.data(), 0, dataBytes, stream);
      backend.fill(device.validity(), 0, (rows + 7) / 8, (byte) 0xFF, stream);
      stream.synchronize();
      return new Column(offsets, data, device, rows, dataBytes);
    } catch (RuntimeException e) {
      if (bytes != null) bytes.close();
      offsets.close();
      throw e;
    }
  }

  private static SplittableRandom rowRandom(long seed, int row) {
    return new SplittableRandom(seed * 0x9E3779B97F4A7C15L + row);
  }

  private static int length(long seed, int row, int minLength, int maxLength) {
    return minLength + rowRandom(seed, row).nextInt(maxLength - minLength + 1);
  }
}
