package io.sparkwarp.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.BackendKind;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The spread join's step timings on simulated host devices, tiny: every step measured, in order, and printed. */
class SpreadJoinStepsTest {
  @Test
  void timesEveryStepOnThreeDevices() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Map<String, Double> medians = SpreadJoinSteps.run(30_000, 3, BackendKind.HOST,
        new PrintStream(out, true, StandardCharsets.UTF_8));
    List<String> side = List.of("part ids", "grouping", "gather", "byte ranges");
    List<String> expected = new ArrayList<>();
    for (String s : side) expected.add("build: " + s);
    expected.addAll(List.of("build: pull of the own range", "build: pull of the others' ranges",
        "build: pull of all ranges", "build: tables", "build: joins"));
    for (String s : side) expected.add("stream: " + s);
    expected.addAll(List.of("stream: pull of all ranges", "probe (output dropped)", "whole SpreadHashJoin"));
    assertEquals(expected, List.copyOf(medians.keySet()));
    String table = out.toString(StandardCharsets.UTF_8);
    for (Map.Entry<String, Double> step : medians.entrySet()) {
      assertTrue(step.getValue() >= 0, step.getKey());
      assertTrue(table.contains("| " + step.getKey() + " | "), table);
    }
  }

  @Test
  void refusesOneDevice() {
    assertThrows(IllegalArgumentException.class, () -> SpreadJoinSteps.run(100, 1, BackendKind.HOST, System.out));
  }
}
