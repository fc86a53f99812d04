package io.sparkwarp.it.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.apache.logging.log4j.LogManager;
import org.junit.jupiter.api.Test;

/** {@link ExplainLog} reads fallback reasons from what loggers under io.sparkwarp write, and only while open. */
class ExplainLogTest {
  private static final String TREE = """
      * GpuToHostExec
        ! ProjectExec cannot run on the GPU because decimal(38,10) is wider than the device's 64-bit decimals; \
      expression Levenshtein is not supported
          * GpuFilterExec""";

  @Test
  void readsTheReasonsOfFallbackLinesByEitherNodeName() {
    List<String> expected = List.of("decimal(38,10) is wider than the device's 64-bit decimals",
        "expression Levenshtein is not supported");
    try (ExplainLog log = ExplainLog.capture()) {
      LogManager.getLogger("io.sparkwarp.plugin.rewrite.Explain").info(TREE);
      LogManager.getLogger("org.apache.spark.Other").warn("! FilterExec cannot run on the GPU because not ours");
      assertEquals(expected, log.reasonsFor("ProjectExec"));
      assertEquals(expected, log.reasonsFor("Project"));
      assertEquals(List.of(), log.reasonsFor("FilterExec"), "only the plugin's loggers are read");
      assertEquals(3, log.lines().size());
    }
  }

  @Test
  void stopsCapturingWhenClosed() {
    ExplainLog log = ExplainLog.capture();
    log.close();
    LogManager.getLogger("io.sparkwarp.plugin.rewrite.Explain").info("! FilterExec cannot run on the GPU because x");
    assertTrue(log.lines().isEmpty());
  }
}
