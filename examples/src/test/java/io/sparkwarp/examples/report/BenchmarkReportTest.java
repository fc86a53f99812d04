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
    Path report = BenchmarkReport.write(List.of(fixture("tpch-fixture.json"), fixture("measurements-fixture.json")),
        out.resolve("report"));
    String md = Files.readString(report);
    assertEquals(out.resolve("report/README.md"), report);
    assertTrue(md.contains("## TPC-H SF 0.01, backend host (host)"), md);
    assertTrue(md.contains("Geomean speed-up **0.50x** over 2 queries; **some answers differed from Spark's**"), md);
    assertTrue(md.contains("| Q3 shipping priority | 410 | 820 | 0.50x | match | GpuToHostExec, "
        + "GpuBroadcastHashJoinExec, GpuFilterExec, HostToGpuExec |"), md);
    assertTrue(md.contains("| Q6 forecasting revenue change | 100 | 200 | 0.50x | **differ** | none |"), md);
    assertTrue(md.contains("| download | 27.5 GB/s | 55 GB/s | 50% |"), md);
    assertTrue(md.contains("| batch rows | 100000000 rows |  |  |"), md);
    assertFalse(md.contains("inactive"), md);

    for (String chart : List.of("tpch-fixture-speedup.png", "tpch-fixture-times.png",
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
  void rejectsAFileOfAnotherKind() throws IOException {
    Path other = Files.writeString(out.resolve("other.json"), "{\"name\": \"x\"}");
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> BenchmarkReport.write(List.of(other), out.resolve("r")));
    assertTrue(e.getMessage().contains("neither TpchBenchmark results"), e.getMessage());
  }
}
