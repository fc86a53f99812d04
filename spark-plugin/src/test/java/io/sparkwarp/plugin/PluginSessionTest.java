package io.sparkwarp.plugin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.plugin.rewrite.FallbackReasons;
import java.io.File;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SparkPlan;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The plugin as a user turns it on: one spark.plugins setting, validation at start-up, the switch that turns the
 * rewrite off, fallback reasons on the CPU operators, and auto without a GPU leaving Spark alone.
 */
class PluginSessionTest {
  private static SparkSession session(String backend, String... extra) {
    SparkSession.Builder b = SparkSession.builder().master("local[2]").appName("sparkwarp-plugin-test")
        .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
        .config("spark.plugins", "io.sparkwarp.WarpPlugin").config("spark.warp.backend", backend)
        .config("spark.warp.explain", "ALL");
    for (int i = 0; i < extra.length; i += 2) b.config(extra[i], extra[i + 1]);
    return b.getOrCreate();
  }

  private static boolean hasNode(SparkPlan plan, String name) {
    return plan.find(p -> p.nodeName().equals(name)).isDefined();
  }

  @Test
  void onePluginSettingRegistersTheRewriteAndFallbackReasonsAreRecorded() {
    SparkSession spark = session("host", "spark.sql.adaptive.enabled", "false");
    try {
      assertTrue(spark.conf().get("spark.sql.extensions").contains(WarpSessionExtensions.class.getName()));
      // a regular expression has no GPU version in this issue: the filter stays on the CPU, with the reason
      Dataset<Row> df = spark.range(0, 50).selectExpr("cast(id as string) as s").filter("s rlike '^1'");
      List<Row> rows = df.collectAsList();
      assertEquals(11, rows.size());
      SparkPlan filter = df.queryExecution().executedPlan().find(p -> p.nodeName().equals("Filter")).get();
      assertFalse(FallbackReasons.of(filter).isEmpty(), "the CPU filter carries why it stayed there");

      spark.conf().set("spark.warp.enabled", "false");
      Dataset<Long> off = spark.range(0, 10).filter("id > 3");
      assertEquals(6, off.count());
      assertFalse(hasNode(off.queryExecution().executedPlan(), "GpuFilterExec"));
      assertFalse(hasNode(off.queryExecution().executedPlan(), "HostToGpuExec"));
    } finally {
      spark.stop();
    }
  }

  @Test
  void aBadSettingStopsTheApplicationWithTheKeyNamed() {
    Exception e = assertThrows(Exception.class, () -> session("host", "spark.warp.explain", "BOGUS").stop());
    Throwable t = e;
    while (t.getCause() != null && !t.getMessage().contains("spark.warp.explain")) t = t.getCause();
    assertTrue(t.getMessage().contains("spark.warp.explain must be one of NONE, NOT_ON_GPU, ALL"), t.getMessage());
    SparkSession.clearActiveSession();
    SparkSession.clearDefaultSession();
  }

  @Test
  void autoWithoutAGpuSaysSoInOneWarningLineAndLeavesEveryPlanToSpark() {
    Assumptions.assumeFalse(new File("/dev/nvidiactl").exists(), "this machine has an NVIDIA GPU");
    List<LogEvent> warnings = new CopyOnWriteArrayList<>();
    AbstractAppender capture = new AbstractAppender("sparkwarp-warnings", null, null, true, Property.EMPTY_ARRAY) {
      @Override
      public void append(LogEvent event) {
        if (event.getLoggerName().startsWith("io.sparkwarp") && event.getLevel().isMoreSpecificThan(Level.WARN)) {
          warnings.add(event.toImmutable());
        }
      }
    };
    capture.start();
    Logger root = (Logger) LogManager.getRootLogger();
    root.addAppender(capture);
    SparkSession spark = session("auto");
    try {
      assertFalse(PluginState.active());
      Dataset<Row> df = spark.range(0, 100).filter("id % 7 = 0").selectExpr("id + 1");
      assertEquals(15, df.count());
      SparkPlan plan = df.queryExecution().executedPlan();
      assertTrue(plan.find(p -> p.nodeName().startsWith("Gpu") || p.nodeName().equals("HostToGpuExec")).isEmpty());
    } finally {
      spark.stop();
      root.removeAppender(capture);
    }
    // the driver and, in local mode, the executor share the JVM: one warning between them, no stack trace
    assertEquals(1, warnings.size(), () -> warnings.stream().map(e -> e.getMessage().getFormattedMessage()).toList()
        .toString());
    String warning = warnings.get(0).getMessage().getFormattedMessage();
    assertTrue(warning.startsWith("sparkwarp is inactive: no usable GPU ("), warning);
    assertEquals(1, warning.lines().count(), warning);
    assertNull(warnings.get(0).getThrown(), "the cause goes to DEBUG");
  }
}
