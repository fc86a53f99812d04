package io.sparkwarp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.SqlTabMetrics;
import io.sparkwarp.examples.SqlTabMetrics.Operator;
import io.sparkwarp.it.harness.SharedSpark;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The plugin's SQL metrics as a user sees them in the Spark UI's SQL tab, read back through Spark's REST API
 * ({@link SqlTabMetrics}) from a real local session with the UI on: each plugin operator's metric names and plausible values after a filter and a
 * broadcast join. Its own SparkContext (the UI on, unlike {@link SharedSpark}'s), so it runs in a JVM of its own
 * (the own-context surefire execution).
 */
@Tag("own-context")
class SparkUiMetricsTest {
  private static final String ROWS = "number of output rows";
  private static final String BATCHES = "number of output batches";
  private static final String GPU_TIME = "GPU time";
  private static final String INPUT_ROWS = "input rows";
  private static final String PCIE_BYTES = "bytes over PCIe";
  private static final String PCIE_TIME = "PCIe transfer time";
  private static final String GATHER_TIME = "time gathering rows (their producers' time included)";
  private static final String MATCHES = "pairs with equal keys";
  private static final String BUILD_BYTES = "build bytes uploaded";
  private static final String NAIVE = "batches probed naively";
  private static final String PUSH_DOWN = "batches probed with push-down";
  private static final String REFILL = "batches probed with lane refill";
  private static final String LANES = "lane utilisation (% of 32 lanes)";
  private static final String PLAIN_STRINGS = "string predicates on plain strings (batches)";
  private static final String PIVOTED_STRINGS = "string predicates on pivoted strings (batches)";
  private static final String SELF_PIVOTED_STRINGS = "string predicates on self-pivoted strings (batches)";
  private static final String STRING_LANES = "string matching lane utilisation (% of 32 lanes)";
  private static final String RETRIES = "steps retried once other tasks freed device memory";
  private static final String SPLITS = "batches split in halves for device memory";
  /** A timing or size metric's line under "total (min, med, max (stageId: taskId))": its total and unit. */
  private static final Pattern TOTAL = Pattern.compile("(?s)^total \\(min, med, max.*?\\n([0-9.,]+) ([A-Za-z]+) ");

  private static SparkSession spark;
  private static String backend;

  @BeforeAll
  static void start() throws IOException {
    int port;
    try (ServerSocket free = new ServerSocket(0)) {
      port = free.getLocalPort();
    }
    backend = System.getProperty(SharedSpark.BACKEND_PROPERTY, "host");
    spark = SparkSession.builder().master("local[2]").appName("sparkwarp UI metrics")
        .config("spark.ui.enabled", "true").config("spark.ui.port", Integer.toString(port))
        .config("spark.port.maxRetries", "0")  // the port asked for, or a clear failure
        .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "localhost")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2").config("spark.sql.adaptive.enabled", "false")
        .config("spark.plugins", SharedSpark.PLUGIN).config("spark.warp.backend", backend)
        .getOrCreate();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  @Test
  void everyPluginOperatorShowsItsMetricsInTheSqlTab() {
    spark.sql("SELECT id AS k, id % 10 AS v FROM range(0, 20000, 1, 2)").createOrReplaceTempView("facts");
    spark.sql("SELECT id AS dk, concat('d', id) AS name FROM range(0, 100)").createOrReplaceTempView("dims");
    // 20,000 facts, a quarter pass the filter, each meets one dimension row
    long rows = spark.sql("SELECT /*+ BROADCAST(d) */ f.k, d.name FROM facts f JOIN dims d ON f.v = d.dk"
        + " WHERE f.k % 4 = 0").collectAsList().size();
    assertEquals(5000, rows);
    List<Operator> nodes = SqlTabMetrics.latestWith(spark, "GpuBroadcastHashJoin");
    String all = nodes.toString();
    boolean lanes = !backend.equals("host");  // the host backend has no lanes: no lane metric, rather than a 0

    Operator filter = only(nodes, "GpuFilter");
    assertEquals(withLanes(Set.of(ROWS, BATCHES, GPU_TIME, INPUT_ROWS, PLAIN_STRINGS, PIVOTED_STRINGS,
        SELF_PIVOTED_STRINGS, RETRIES, SPLITS), STRING_LANES, lanes), filter.metrics().keySet(), all);
    assertEquals(0, filter.count(SPLITS), "device memory to spare: " + all);
    assertEquals(20000, filter.count(INPUT_ROWS), all);
    assertEquals(5000, filter.count(ROWS), all);
    assertTrue(filter.count(BATCHES) >= 1, all);
    assertEquals(0, filter.count(PLAIN_STRINGS), "no string predicate in this filter: " + all);
    assertTime(filter.metrics().get(GPU_TIME));

    Operator join = only(nodes, "GpuBroadcastHashJoin");
    assertEquals(withLanes(Set.of(ROWS, BATCHES, GPU_TIME, MATCHES, NAIVE, PUSH_DOWN, REFILL, BUILD_BYTES, RETRIES,
        SPLITS), LANES, lanes), join.metrics().keySet(), all);
    assertEquals(5000, join.count(ROWS), all);
    assertEquals(5000, join.count(MATCHES), all);
    assertTrue(join.count(BATCHES) >= 1, all);
    assertTrue(join.count(NAIVE) + join.count(PUSH_DOWN) + join.count(REFILL) >= 1, "a probe variant ran: " + all);
    assertTime(join.metrics().get(GPU_TIME));
    // the broadcast's build went up once (one device): a size, not zero
    assertTrue(join.metrics().get(BUILD_BYTES).matches("(?s).*[1-9][0-9.,]* (B|KiB|MiB).*"), all);
    if (lanes) {
      double utilisation = join.average(LANES);
      assertTrue(utilisation > 0 && utilisation <= 100, all);
    }

    List<Operator> uploads = nodes.stream().filter(n -> n.name().equals("HostToGpu")).toList();
    Operator download = only(nodes, "GpuToHost");
    for (Operator transition : concat(uploads, download)) {
      Set<String> expected = new HashSet<>(Set.of(ROWS, BATCHES, PCIE_BYTES, PCIE_TIME));
      if (transition.name().equals("HostToGpu")) {
        expected.addAll(Set.of(GATHER_TIME, RETRIES, SPLITS));  // an upload also times its gathering, and may split
      }
      assertEquals(expected, transition.metrics().keySet(), all);
      assertTrue(transition.count(BATCHES) >= 1, all);
      assertTime(transition.metrics().get(PCIE_TIME));
    }
    uploads.forEach(upload -> assertTime(upload.metrics().get(GATHER_TIME)));
    // up go the facts (range's one long column: the key and v are computed on the GPU), while the dimension rows
    // reach the join as Spark's broadcast; down comes the join's answer
    assertEquals(20000, uploads.stream().mapToLong(n -> n.count(ROWS)).sum(), all);
    assertTrue(uploads.stream().mapToDouble(n -> bytes(n.metrics().get(PCIE_BYTES))).sum() >= 20000 * 8, all);
    assertEquals(5000, download.count(ROWS), all);
    assertTrue(bytes(download.metrics().get(PCIE_BYTES)) >= 5000 * 8, all);
  }

  private static Set<String> withLanes(Set<String> names, String laneMetric, boolean lanes) {
    Set<String> all = new HashSet<>(names);
    if (lanes) all.add(laneMetric);
    return all;
  }

  private static Operator only(List<Operator> nodes, String name) {
    List<Operator> named = nodes.stream().filter(n -> n.name().equals(name)).toList();
    assertEquals(1, named.size(), name + " in " + nodes);
    return named.get(0);
  }

  private static List<Operator> concat(List<Operator> nodes, Operator node) {
    List<Operator> all = new ArrayList<>(nodes);
    all.add(node);
    return all;
  }

  /** A timing metric's total is a duration, such as "12 ms" or "1.2 s". */
  private static void assertTime(String value) {
    Matcher m = TOTAL.matcher(value);
    assertTrue(m.find() && Set.of("ms", "s", "m", "h").contains(m.group(2)), value);
  }

  /** A size metric's total in bytes: "312.5 KiB" is 320,000 bytes. */
  private static double bytes(String value) {
    Matcher m = TOTAL.matcher(value);
    assertTrue(m.find(), value);
    double number = Double.parseDouble(m.group(1).replace(",", ""));
    int power = List.of("B", "KiB", "MiB", "GiB", "TiB").indexOf(m.group(2));
    assertTrue(power >= 0, value);
    return number * Math.pow(1024, power);
  }
}
