package io.sparkwarp.plugin.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Which of an executor's GPUs it opens: all Spark assigned, one in local mode, or as many as asked. */
class GpuRuntimeDevicesTest {
  @Test
  void sparksAssignmentIsTakenWhole() {
    assertEquals(List.of(2, 3), GpuRuntime.chosen(0, true, List.of(2, 3)));
    assertEquals(List.of(2), GpuRuntime.chosen(1, true, List.of(2, 3)));
  }

  @Test
  void localModeTakesOneUnlessAsked() {
    assertEquals(List.of(0), GpuRuntime.chosen(0, false, List.of(0, 1)));
    assertEquals(List.of(0, 1), GpuRuntime.chosen(2, false, List.of(0, 1)));
    // asking for more than there are takes them all
    assertEquals(List.of(0, 1), GpuRuntime.chosen(4, false, List.of(0, 1)));
  }
}
