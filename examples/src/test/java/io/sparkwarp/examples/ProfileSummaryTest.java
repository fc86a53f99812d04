package io.sparkwarp.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A recording of a busy thread named as Spark names task threads, and one that is not: only the first counts. JFR
 * samples a few threads every period and may sample none on a loaded two-core machine, so a recording without task
 * samples is made again (up to five times) before the test fails.
 */
class ProfileSummaryTest {
  @TempDir
  Path dir;

  private static volatile long sink;

  @Test
  void countsTaskThreadsByTheirTopFrames() throws Exception {
    List<String> lines = List.of("0 samples of task threads");
    for (int attempt = 0; attempt < 5 && taskSamples(lines) == 0; attempt++) lines = record(dir.resolve(attempt + ".jfr"));
    assertTrue(taskSamples(lines) > 0, String.join("\n", lines));
    assertTrue(lines.stream().anyMatch(l -> l.contains("ProfileSummaryTest.busyTask")), String.join("\n", lines));
    assertTrue(lines.stream().noneMatch(l -> l.contains("busyOther")), String.join("\n", lines));
  }

  private static long taskSamples(List<String> lines) {
    return Long.parseLong(lines.get(0).split(" ")[0]);
  }

  private static List<String> record(Path file) throws Exception {
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
    return ProfileSummary.summarize(file, 3, 10);
  }

  private static void busyTask() {
    spin();
  }

  private static void busyOther() {
    spin();
  }

  /** Java arithmetic between rare clock reads, so the thread is in Java code (sampled) rather than in a native call. */
  private static void spin() {
    long end = System.nanoTime() + 600_000_000L;
    long x = 1;
    do {
      for (int i = 0; i < 1 << 20; i++) x = x * 6364136223846793005L + Long.numberOfTrailingZeros(x | i);
    } while (System.nanoTime() < end);
    sink = x;
  }
}
