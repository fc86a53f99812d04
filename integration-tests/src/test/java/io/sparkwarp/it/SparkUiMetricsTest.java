package io.sparkwarp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sparkwarp.it.harness.SharedSpark;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The plugin's SQL metrics as a user sees them in the Spark UI's SQL tab, read back through Spark's REST API from a
 * real local session with the UI on: each plugin operator's metric names and plausible values after a filter and a
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
  private static final String MATCHES = "pairs with equal keys";
  private static final String NAIVE = "batches probed naively";
  private static final String PUSH_DOWN = "batches probed with push-down";
  private static final String REFILL = "batches probed with lane refill";
  private static final String LANES = "lane utilisation (% of 32 lanes)";
  private static final String PLAIN_STRINGS = "string predicates on plain strings (batches)";
  private static final String PIVOTED_STRINGS = "string predicates on pivoted strings (batches)";
  private static final String SELF_PIVOTED_STRINGS = "string predicates on self-pivoted strings (batches)";
  private static final String STRING_LANES = "string matching lane utilisation (% of 32 lanes)";
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
  void everyPluginOperatorShowsItsMetricsInTheSqlTab() throws Exception {
    spark.sql("SELECT id AS k, id % 10 AS v FROM range(0, 20000, 1, 2)").createOrReplaceTempView("facts");
    spark.sql("SELECT id AS dk, concat('d', id) AS name FROM range(0, 100)").createOrReplaceTempView("dims");
    // 20,000 facts, a quarter pass the filter, each meets one dimension row
    long rows = spark.sql("SELECT /*+ BROADCAST(d) */ f.k, d.name FROM facts f JOIN dims d ON f.v = d.dk"
        + " WHERE f.k % 4 = 0").collectAsList().size();
    assertEquals(5000, rows);
    spark.sparkContext().listenerBus().waitUntilEmpty();  // the SQL tab's store is fed by the listener bus

    List<UiNode> nodes = pluginNodes(lastExecutionWith("GpuBroadcastHashJoin"));
    String all = nodes.toString();
    boolean lanes = !backend.equals("host");  // the host backend has no lanes: no lane metric, rather than a 0

    UiNode filter = only(nodes, "GpuFilter");
    assertEquals(withLanes(Set.of(ROWS, BATCHES, GPU_TIME, INPUT_ROWS, PLAIN_STRINGS, PIVOTED_STRINGS,
        SELF_PIVOTED_STRINGS), STRING_LANES, lanes), filter.metrics().keySet(), all);
    assertEquals(20000, filter.count(INPUT_ROWS), all);
    assertEquals(5000, filter.count(ROWS), all);
    assertTrue(filter.count(BATCHES) >= 1, all);
    assertEquals(0, filter.count(PLAIN_STRINGS), "no string predicate in this filter: " + all);
    assertTime(filter.metrics().get(GPU_TIME));

    UiNode join = only(nodes, "GpuBroadcastHashJoin");
    assertEquals(withLanes(Set.of(ROWS, BATCHES, GPU_TIME, MATCHES, NAIVE, PUSH_DOWN, REFILL), LANES, lanes),
        join.metrics().keySet(), all);
    assertEquals(5000, join.count(ROWS), all);
    assertEquals(5000, join.count(MATCHES), all);
    assertTrue(join.count(BATCHES) >= 1, all);
    assertTrue(join.count(NAIVE) + join.count(PUSH_DOWN) + join.count(REFILL) >= 1, "a probe variant ran: " + all);
    assertTime(join.metrics().get(GPU_TIME));
    if (lanes) {
      double utilisation = average(join.metrics().get(LANES));
      assertTrue(utilisation > 0 && utilisation <= 100, all);
    }

    List<UiNode> uploads = nodes.stream().filter(n -> n.name().equals("HostToGpu")).toList();
    UiNode download = only(nodes, "GpuToHost");
    for (UiNode transition : concat(uploads, download)) {
      assertEquals(Set.of(ROWS, BATCHES, PCIE_BYTES, PCIE_TIME), transition.metrics().keySet(), all);
      assertTrue(transition.count(BATCHES) >= 1, all);
      assertTime(transition.metrics().get(PCIE_TIME));
    }
    // up go the facts (range's one long column: the key and v are computed on the GPU), while the dimension rows
    // reach the join as Spark's broadcast; down comes the join's answer
    assertEquals(20000, uploads.stream().mapToLong(n -> n.count(ROWS)).sum(), all);
    assertTrue(uploads.stream().mapToDouble(n -> bytes(n.metrics().get(PCIE_BYTES))).sum() >= 20000 * 8, all);
    assertEquals(5000, download.count(ROWS), all);
    assertTrue(bytes(download.metrics().get(PCIE_BYTES)) >= 5000 * 8, all);
  }

  /** A plugin node as the SQL tab shows it: its name and its metrics (name to displayed value). */
  private record UiNode(String name, Map<String, String> metrics) {
    /** A count metric's value: "20,000" is 20000. */
    long count(String metric) {
      return Long.parseLong(metrics.get(metric).replace(",", ""));
    }
  }

  private static Set<String> withLanes(Set<String> names, String laneMetric, boolean lanes) {
    Set<String> all = new HashSet<>(names);
    if (lanes) all.add(laneMetric);
    return all;
  }

  private static UiNode only(List<UiNode> nodes, String name) {
    List<UiNode> named = nodes.stream().filter(n -> n.name().equals(name)).toList();
    assertEquals(1, named.size(), name + " in " + nodes);
    return named.get(0);
  }

  private static List<UiNode> concat(List<UiNode> nodes, UiNode node) {
    List<UiNode> all = new ArrayList<>(nodes);
    all.add(node);
    return all;
  }

  /** The SQL execution, as the REST API returns it, whose plan has a node named {@code nodeName}; the latest. */
  private static JsonNode lastExecutionWith(String nodeName) throws IOException, InterruptedException {
    String url = spark.sparkContext().uiWebUrl().get() + "/api/v1/applications/" + spark.sparkContext().applicationId()
        + "/sql?details=true";
    HttpResponse<String> response = HttpClient.newHttpClient()
        .send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, response.statusCode(), url + ": " + response.body());
    List<JsonNode> executions = StreamSupport.stream(new ObjectMapper().readTree(response.body()).spliterator(), false)
        .filter(e -> StreamSupport.stream(e.get("nodes").spliterator(), false)
            .anyMatch(n -> n.get("nodeName").asText().equals(nodeName)))
        .toList();
    assertFalse(executions.isEmpty(), "no execution with " + nodeName + " in " + response.body());
    return executions.get(executions.size() - 1);
  }

  /** The plugin's nodes of the execution, each with its metrics. */
  private static List<UiNode> pluginNodes(JsonNode execution) {
    List<UiNode> nodes = new ArrayList<>();
    for (JsonNode node : execution.get("nodes")) {
      String name = node.get("nodeName").asText();
      if (!name.startsWith("Gpu") && !name.equals("HostToGpu")) continue;
      Map<String, String> metrics = new TreeMap<>();
      node.get("metrics").forEach(m -> metrics.put(m.get("name").asText(), m.get("value").asText()));
      nodes.add(new UiNode(name, metrics));
    }
    return nodes;
  }

  /** A timing metric's total is a duration, such as "12 ms" or "1.2 s". */
  private static void assertTime(String value) {
    Matcher m = TOTAL.matcher(value);
    assertTrue(m.find() && Set.of("ms", "s", "m", "h").contains(m.group(2)), value);
  }

  /** A size metric's total in bytes: "312.5 KiB" is 320,000. */
  private static double bytes(String value) {
    Matcher m = TOTAL.matcher(value);
    assertTrue(m.find(), value);
    double number = Double.parseDouble(m.group(1).replace(",", ""));
    int power = List.of("B", "KiB", "MiB", "GiB", "TiB").indexOf(m.group(2));
    assertTrue(power >= 0, value);
    return number * Math.pow(1024, power);
  }

  /** An average metric's value: "avg (min, med, max (stageId: taskId))\n42.0 (...)". */
  private static double average(String value) {
    Matcher m = Pattern.compile("(?s)^avg \\(min, med, max.*?\\n([0-9.,]+) ").matcher(value);
    assertTrue(m.find(), value);
    return Double.parseDouble(m.group(1).replace(",", ""));
  }
}
