package io.sparkwarp.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StageTimelineTest {
  @Test
  void stagesInTheOrderTheyBeganWithTheirWavesAndSpread() {
    // stage 4: three tasks on two slots, the third launched when the first ended; stage 2 began first
    Map<Integer, List<long[]>> tasks = Map.of(
        4, List.of(new long[] {1_100, 1_300}, new long[] {1_100, 1_250}, new long[] {1_300, 1_500}),
        2, List.of(new long[] {1_000, 1_090}));
    assertEquals(List.of(
        "stage 2: 1 tasks, launched +0 to +0 ms, done +90 ms; a task took 90 ms at least, 90 median, 90 at most",
        "stage 4: 3 tasks, launched +100 to +300 ms, done +500 ms; a task took 150 ms at least, 200 median, 200 at "
            + "most"), StageTimeline.describe(new java.util.TreeMap<>(tasks)));
  }

  @Test
  void noTasksNoLines() {
    assertEquals(List.of(), StageTimeline.describe(Map.of()));
  }
}
