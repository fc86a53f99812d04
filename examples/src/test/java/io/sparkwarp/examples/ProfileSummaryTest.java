package io.sparkwarp.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A recording of a busy thread named as Spark names task threads, and one that is not: only the first counts. */
class ProfileSummaryTest {
  @TempDir
  Path dir;

  private static volatile long sink;

  @Test
  void countsTaskThreadsByTheirTopFrames() throws Exception {
    Path file = dir.resolve("run.jfr");
    try (Recording recording = new Recording()) {
      recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
      recording.start();
      Thread task = new Thread(ProfileSummaryTest::busyTask, "Executor task launch worker for task 0.0");
      Thread other = new Thread(ProfileSummaryTest::busyOther, "some other thread");
      task.start();
      other.start();
      task.join();
      other.join();
      recording.stop();
      recording.dump(file);
    }
    List<String> lines = ProfileSummary.summarize(file, 3, 10);
    assertTrue(Long.parseLong(lines.get(0).split(" ")[0]) > 0, String.join("\n", lines));
    assertTrue(lines.stream().anyMatch(l -> l.contains("ProfileSummaryTest.busyTask")), String.join("\n", lines));
    assertTrue(lines.stream().noneMatch(l -> l.contains("busyOther")), String.join("\n", lines));
  }

  private static void busyTask() {
    spin();
  }

  private static void busyOther() {
    spin();
  }

  private static void spin() {
    long end = System.nanoTime() + 600_000_000L;
    long x = 0;
    while (System.nanoTime() < end) x += Long.numberOfTrailingZeros(x + System.nanoTime());
    sink = x;
  }
}
