package io.sparkwarp.examples.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report of a TPC-H result file and a measurements file (fixtures, not measurements): Markdown and charts. */
class BenchmarkReportTest {
  @TempDir Path out;

  private static Path fixture(String name) throws URISyntaxException {
    return Path.of(BenchmarkReportTest.class.getResource("/report/" + name).toURI());
  }

  @Test
  void writesMarkdownWithChartsThatAreValidImages() throws Exception {
    // the TPC-H run comes in two parts, as a benchmark split over two calls would
    Path report = BenchmarkReport.write(List.of(fixture("tpch-fixture.json"), fixture("measurements-fixture.json"),
        fixture("tpch-fixture-part2.json")), out.resolve("report"));
    String md = Files.readString(report);
    assertEquals(out.resolve("report/README.md"), report);
    assertTrue(md.contains("## TPC-H SF 0.01, backend host (host)"), md);
    assertEquals(1, md.lines().filter(line -> line.startsWith("## TPC-H")).count(), "one section for both parts");
    // geomean of 0.5, 0.5 and 2
    assertTrue(md.contains("Geomean speed-up **0.79x** over 3 queries; **some answers differed from Spark's**"), md);
    assertTrue(md.indexOf("| Q6 forecasting") < md.indexOf("| Q14 promotion effect | 300 | 150 | 2.00x | match |"),
        md);
    assertTrue(md.contains("| Q3 shipping priority | 410 | 820 | 0.50x | match | GpuToHostExec, "
        + "GpuBroadcastHashJoinExec, GpuFilterExec, HostToGpuExec |"), md);
    assertTrue(md.contains("| Q6 forecasting revenue change | 100 | 200 | 0.50x | **differ** | none |"), md);
    assertTrue(md.contains("| download | 27.5 GB/s | 55 GB/s | 50% |"), md);
    assertTrue(md.contains("| batch rows | 100000000 rows |  |  |"), md);
    assertFalse(md.contains("inactive"), md);
    // operator times: only the second part measured them; the first part's queries show 0
    assertTrue(md.contains("| query | HostToGpuExec | GpuFilterExec |"), md);
    assertTrue(md.contains("| Q3 | 0 | 0 |"), md);
    assertTrue(md.contains("| Q14 | 42 | 7 |"), md);

    for (String chart : List.of("tpch-fixture-speedup.png", "tpch-fixture-times.png", "tpch-fixture-operators.png",
        "measurements-fixture-limits.png")) {
      assertTrue(md.contains("](" + chart + ")"), chart + " is linked from the report");
      BufferedImage image = ImageIO.read(out.resolve("report").resolve(chart).toFile());
      assertNotNull(image, chart + " is a PNG");
      assertEquals(900, image.getWidth(), chart);
      assertEquals(450, image.getHeight(), chart);
      assertTrue(distinctColours(image) > 3, chart + " has something drawn on it");
    }
  }

  private static long distinctColours(BufferedImage image) {
    return java.util.stream.IntStream.range(0, image.getWidth() * image.getHeight())
        .map(i -> image.getRGB(i % image.getWidth(), i / image.getWidth())).distinct().count();
  }

  @Test
  void mergesOnlyRunsOfOneSetting() throws Exception {
    BenchmarkResults run = BenchmarkResults.read(fixture("tpch-fixture.json"));
    BenchmarkResults otherScale = new BenchmarkResults(1, run.backend(), run.device(), true, run.date(), run.master(),
        run.sparkVersion(), run.warmUps(), run.repetitions(), 1, true, run.queries());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> BenchmarkResults.merge(List.of(run, otherScale)));
    assertTrue(e.getMessage().startsWith("cannot merge runs of different settings"), e.getMessage());
  }

  @Test
  void rejectsAFileOfAnotherKind() throws IOException {
    Path other = Files.writeString(out.resolve("other.json"), "{\"name\": \"x\"}");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> BenchmarkReport.write(List.of(other), out.resolve("r")));
    assertTrue(e.getMessage().contains("neither TpchBenchmark results"), e.getMessage());
  }
}
