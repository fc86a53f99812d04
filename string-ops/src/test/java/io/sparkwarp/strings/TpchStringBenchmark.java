package io.sparkwarp.strings;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.cuda.CudaBackend;
import io.sparkwarp.kernels.host.HostBackend;
import io.sparkwarp.kernels.strings.MatchResult;
import io.sparkwarp.kernels.strings.PivotedStrings;
import io.sparkwarp.kernels.strings.StringLayout;
import io.sparkwarp.kernels.strings.StringMatcher;
import io.sparkwarp.kernels.strings.StringTesting;
import io.sparkwarp.kernels.testing.BenchmarkClock;
import io.sparkwarp.strings.TpchStringColumns.HostStrings;
import java.util.List;
import java.util.Locale;
import java.util.stream.IntStream;

/**
 * String matching throughput on device-resident TPC-H columns (issue 5): for l_comment, o_comment and p_name, a
 * prefix, a single {@code %x%}, a two-segment {@code %x%y%}, an {@code _} pattern, a three-way alternation
 * (Aho-Corasick) and a regex, each on the plain and the pivoted layout with Lane Refill on and off. Figures: the
 * match kernel alone (median of {@value #REPEAT} after a warm-up, CUDA events), GB/s of string bytes, that rate
 * against the device-memory ceiling measured in the same run by a copy (bytes read + written), lane utilisation,
 * and the pivoted layout's build time. Every run's match count is checked against the host reference.
 *
 * <p>Run: {@code run.sh main io.sparkwarp.strings.TpchStringBenchmark [scale=10] [--host]} (JAVA_OPTS=-Xmx24g at
 * SF10: the columns are also kept on the host for the reference answers).
 */
public final class TpchStringBenchmark {
  private static final int REPEAT = 5;

  /** A benchmark pattern: what it is, and the SQL predicate it stands for. */
  private record Case(String kind, String sql, StringMatcher matcher) {}

  private final Backend backend;
  private final DeviceStream stream;
  private final BenchmarkClock clock;
  private boolean failed;

  private TpchStringBenchmark(Backend backend, DeviceStream stream, BenchmarkClock clock) {
    this.backend = backend;
    this.stream = stream;
    this.clock = clock;
  }

  public static void main(String[] args) {
    double scale = 10;
    boolean host = false;
    for (String a : args) {
      if (a.equals("--host")) host = true;
      else scale = Double.parseDouble(a);
    }
    long t0 = System.nanoTime();
    boolean ok;
    try (Backend backend = host ? new HostBackend(BackendOptions.defaults())
        : CudaBackend.open(BackendOptions.defaults())) {
      DeviceStream stream = backend.newStream();
      try (BenchmarkClock clock = BenchmarkClock.of(backend, stream)) {
        double ceiling = clock.copyGbs(backend, stream, host ? 64L << 20 : 1L << 30, REPEAT);
        System.out.printf(Locale.ROOT, "# TPC-H string matching throughput%n%nmachine: %s; %d host cores; TPC-H "
            + "SF %s; device copy ceiling %.0f GB/s (read + write, same run); times: match kernel only, median of %d "
            + "after a warm-up (%s)%n", backend.description(), Runtime.getRuntime().availableProcessors(), scale,
            ceiling, REPEAT, host ? "wall clock, host reference backend: not GPU figures" : "CUDA events");
        TpchStringBenchmark bench = new TpchStringBenchmark(backend, stream, clock);
        bench.column(TpchStringColumns.lineitemComments(scale), ceiling, List.of(
            new Case("prefix", "LIKE 'carefully%'", like("carefully%")),
            new Case("%x%", "LIKE '%regular%'", like("%regular%")),
            new Case("%x%y%", "LIKE '%regular%deposits%'", like("%regular%deposits%")),
            new Case("_", "LIKE '%r_gular%'", like("%r_gular%")),
            new Case("3-way OR", "LIKE '%quick%' OR '%slyly%' OR '%blithe%'",
                anyOf("%quick%", "%slyly%", "%blithe%")),
            new Case("regex", "RLIKE '(furious|sly|careful)ly (final|ironic) (deposits|packages)'",
                regex("(furious|sly|careful)ly (final|ironic) (deposits|packages)"))));
        bench.column(TpchStringColumns.orderComments(scale), ceiling, List.of(
            new Case("prefix", "LIKE 'special%'", like("special%")),
            new Case("%x%", "LIKE '%special%'", like("%special%")),
            new Case("%x%y%", "LIKE '%special%requests%'", like("%special%requests%")),
            new Case("_", "LIKE '%sp_cial%'", like("%sp_cial%")),
            new Case("3-way OR", "LIKE '%express%' OR '%pending%' OR '%unusual%'",
                anyOf("%express%", "%pending%", "%unusual%")),
            new Case("regex", "RLIKE 'special.*(requests|packages)$'", regex("special.*(requests|packages)$"))));
        bench.column(TpchStringColumns.partNames(scale), ceiling, List.of(
            new Case("prefix", "LIKE 'forest%'", like("forest%")),
            new Case("%x%", "LIKE '%green%'", like("%green%")),
            new Case("%x%y%", "LIKE '%green%blue%'", like("%green%blue%")),
            new Case("_", "LIKE '%gr_en%'", like("%gr_en%")),
            new Case("3-way OR", "LIKE '%green%' OR '%blue%' OR '%red%'", anyOf("%green%", "%blue%", "%red%")),
            new Case("regex", "RLIKE '^(forest|green) [a-z]+ (blue|red)'", regex("^(forest|green) [a-z]+ (blue|red)"))));
        ok = !bench.failed;
      } finally {
        stream.close();
      }
      long leaked = backend.deviceMemory().bytesInUse();
      System.out.printf(Locale.ROOT, "%nDevice memory still held at the end: %d bytes%s; total %.1f s%n", leaked,
          leaked == 0 ? " (no leaks)" : " (LEAK)", (System.nanoTime() - t0) / 1e9);
      ok &= leaked == 0;
    }
    if (!ok) {
      System.out.println("FAILED: see MISMATCH above");
      System.exit(1);
    }
  }

  private void column(HostStrings s, double ceiling, List<Case> cases) {
    double gb = s.byteCount() / 1e9;
    System.out.printf(Locale.ROOT, "%n## %s: %,d rows, %.2f GB of strings (%.1f bytes per row)%n%n", s.name(),
        s.rows(), gb, s.byteCount() / (double) s.rows());
    try (DeviceColumn column = TpchStringColumns.upload(backend, s, stream);
        PivotedStrings pivoted = backend.strings().pivot(column, StringLayout.PIVOTED, stream)) {
      double pivotMs = clock.median(REPEAT, () -> backend.strings().pivot(column, StringLayout.PIVOTED, stream)
          .close());
      System.out.printf(Locale.ROOT, "Pivoted layout: %.2f GB with padding, built in %.2f ms (%.0f GB/s of "
          + "strings)%n%n", pivoted.dataBytes() / 1e9, pivotMs, gb / pivotMs * 1e3);
      System.out.println("| pattern | predicate | matcher | selectivity | layout | refill | ms | GB/s | of ceiling "
          + "| lanes |");
      System.out.println("|---|---|---|---|---|---|---|---|---|---|");
      for (Case c : cases) {
        long expected = s.count(c.matcher());
        for (StringLayout layout : List.of(StringLayout.PLAIN, StringLayout.PIVOTED)) {
          // the contains scan of plain strings has no refill switch: its candidate queue is always on
          boolean scan = layout == StringLayout.PLAIN && scanned(c.matcher());
          for (boolean refill : scan ? new boolean[] {true} : new boolean[] {true, false}) {
            row(s, column, layout == StringLayout.PLAIN ? null : pivoted, c, refill, expected, ceiling);
          }
        }
      }
    }
  }

  private void row(HostStrings s, DeviceColumn column, PivotedStrings layout, Case c, boolean refill,
      long expected, double ceiling) {
    MatchResult[] last = new MatchResult[1];
    double ms = clock.median(REPEAT, () -> {
      if (last[0] != null) last[0].close();
      last[0] = backend.strings().match(column, layout, c.matcher(), refill, stream);
    });
    long found;
    try (MatchResult r = last[0]) {
      boolean[] bits = StringTesting.bits(backend, r.matches().data(), s.rows(), stream);
      found = IntStream.range(0, bits.length).filter(i -> bits[i]).count();
      double gbs = s.byteCount() / ms / 1e6;
      boolean scan = layout == null && scanned(c.matcher());
      String matcher = c.matcher() instanceof io.sparkwarp.kernels.strings.DfaMatcher ? "DFA"
          : !scan ? "KMP" : ((io.sparkwarp.kernels.strings.SegmentMatcher) c.matcher()).segmentCount() == 1 ? "scan"
          : "scan, then KMP";
      System.out.printf(Locale.ROOT, "| %s | %s | %s | %.4f%s | %s | %s | %.3f | %.0f | %.1f%% | %s |%n", c.kind(),
          c.sql(), matcher, found / (double) s.rows(), found == expected ? "" : " MISMATCH (host " + expected + ")",
          r.layout(), scan ? "queue" : refill ? "on" : "off", ms, gbs, 100 * gbs / ceiling,
          Double.isNaN(r.laneUtilisation()) ? "n/a" : String.format(Locale.ROOT, "%.1f%%", 100 * r.laneUtilisation()));
    }
    if (found != expected) failed = true;
  }

  /** Whether the CUDA backend runs the contains scan for {@code m} on plain strings: unanchored segments. */
  private static boolean scanned(StringMatcher m) {
    return m instanceof io.sparkwarp.kernels.strings.SegmentMatcher s && s.unanchored();
  }

  private static StringMatcher like(String pattern) {
    return LikeCompiler.compile(pattern).deviceMatcher().orElseThrow();
  }

  private static StringMatcher regex(String regex) {
    return RegexCompiler.compile(regex).deviceMatcher().orElseThrow();
  }

  private static StringMatcher anyOf(String... patterns) {
    return MultiPattern.anyOf(List.of(patterns)).deviceMatcher().orElseThrow();
  }
}
