package io.sparkwarp.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;
import org.apache.spark.sql.SparkSession;

/**
 * The plugin operators' SQL metrics as the Spark UI's SQL tab shows them, read through Spark's REST API
 * ({@code /api/v1/applications/<id>/sql?details=true}): what a user sees, formatted by Spark (timings and sizes
 * with their total and per-task spread). Needs the session's UI on ({@code spark.ui.enabled}, the default).
 */
public final class SqlTabMetrics {
  /**
   * One plugin operator of a query as the SQL tab shows it.
   *
   * @param name the node's name in the UI (GpuFilter, HostToGpu, ...)
   * @param metrics metric name to displayed value, by name
   */
  public record Operator(String name, Map<String, String> metrics) {
    /** A count metric's value: "20,000" is 20000. */
    public long count(String metric) {
      return Long.parseLong(value(metric).replace(",", ""));
    }

    /**
     * An average metric's value (lane utilisation): the first figure under Spark's "avg (min, med, max ...)"
     * header, or the figure itself where Spark shows no spread.
     */
    public double average(String metric) {
      Matcher m = FIRST_FIGURE.matcher(value(metric));
      if (!m.find()) throw new IllegalArgumentException(name + "'s '" + metric + "' has no figure: " + metrics);
      return Double.parseDouble(m.group(1).replace(",", ""));
    }

    private String value(String metric) {
      String value = metrics.get(metric);
      if (value == null) throw new IllegalArgumentException(name + " shows no metric '" + metric + "': " + metrics);
      return value;
    }
  }

  /** The first number of a metric's value, after Spark's header line where there is one. */
  private static final Pattern FIRST_FIGURE = Pattern.compile("^(?:[^\\n]*\\n)?\\D*?([0-9][0-9.,]*)");

  private static final long LISTENER_WAIT_MS = 60_000;
  /** How many of the latest executions are searched. */
  private static final int RECENT = 20;

  private SqlTabMetrics() {}

  /**
   * The plugin operators of the latest SQL execution that has any.
   *
   * @throws IllegalStateException when none has
   */
  public static List<Operator> latest(SparkSession spark) {
    return latest(spark, SqlTabMetrics::isPlugin, "a plugin node");
  }

  /**
   * The plugin operators of the latest SQL execution whose plan has a node named {@code nodeName}.
   *
   * @throws IllegalStateException when no execution has one
   */
  public static List<Operator> latestWith(SparkSession spark, String nodeName) {
    return latest(spark, nodeName::equals, "a node named " + nodeName);
  }

  private static List<Operator> latest(SparkSession spark, Predicate<String> nodeName, String what) {
    // the SQL tab's store is fed by the listener bus: wait until it has seen the query's end
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty(LISTENER_WAIT_MS);
    } catch (TimeoutException e) {
      throw new IllegalStateException("Spark's listener bus did not drain in " + LISTENER_WAIT_MS + " ms", e);
    }
    JsonNode latest = null;
    for (JsonNode execution : executions(spark)) {
      if (StreamSupport.stream(execution.get("nodes").spliterator(), false)
          .anyMatch(n -> nodeName.test(n.get("nodeName").asText()))) {
        latest = execution;
      }
    }
    if (latest == null) throw new IllegalStateException("no SQL execution has " + what);
    List<Operator> operators = new ArrayList<>();
    for (JsonNode node : latest.get("nodes")) {
      String name = node.get("nodeName").asText();
      if (!isPlugin(name)) continue;
      Map<String, String> metrics = new TreeMap<>();
      node.get("metrics").forEach(m -> metrics.put(m.get("name").asText(), m.get("value").asText()));
      operators.add(new Operator(name, metrics));
    }
    return operators;
  }

  /** Plugin nodes by their UI name: Spark drops the class name's "Exec" (GpuFilterExec shows as GpuFilter). */
  static boolean isPlugin(String nodeName) {
    return nodeName.startsWith("Gpu") || nodeName.equals("HostToGpu");
  }

  private static JsonNode executions(SparkSession spark) {
    String ui = spark.sparkContext().uiWebUrl().getOrElse(() -> {
      throw new IllegalStateException("the session's UI is off (spark.ui.enabled=false)");
    });
    // the API pages executions from the oldest (20 by default): ask for the latest ones
    long count = spark.sharedState().statusStore().executionsCount();
    String url = ui + "/api/v1/applications/" + spark.sparkContext().applicationId() + "/sql?details=true&offset="
        + Math.max(0, count - RECENT) + "&length=" + RECENT;
    try {
      HttpResponse<String> response = HttpClient.newHttpClient()
          .send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IllegalStateException(url + " answered " + response.statusCode() + ": " + response.body());
      }
      return new ObjectMapper().readTree(response.body());
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + url, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted reading " + url, e);
    }
  }
}
