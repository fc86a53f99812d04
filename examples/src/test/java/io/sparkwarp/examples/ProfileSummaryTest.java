package io.sparkwarp.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A recording of two busy threads named as Spark names task threads, one of them through {@link Marked}, and one
 * that is not a task thread: the task threads count, and with a {@code through} prefix only the marked one. JFR
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
    for (int attempt = 0; attempt < 5 && taskSamples(lines) == 0; attempt++) {
      lines = ProfileSummary.summarize(record(dir.resolve(attempt + ".jfr")), 3, 10, null);
    }
    assertTrue(taskSamples(lines) > 0, String.join("\n", lines));
    assertTrue(lines.stream().anyMatch(l -> l.contains("ProfileSummaryTest.busyTask")), String.join("\n", lines));
    assertTrue(lines.stream().noneMatch(l -> l.contains("busyOther")), String.join("\n", lines));
  }

  @Test
  void keepsOnlyStacksThroughTheGivenClasses() throws Exception {
    String through = Marked.class.getName();
    List<String> lines = List.of("0 samples");
    for (int attempt = 0; attempt < 5 && taskSamples(lines) == 0; attempt++) {
      lines = ProfileSummary.summarize(record(dir.resolve(attempt + ".jfr")), 3, 10, through);
    }
    assertTrue(taskSamples(lines) > 0, String.join("\n", lines));
    assertTrue(lines.get(0).endsWith(" through " + through), lines.get(0));
    assertTrue(lines.stream().skip(1).allMatch(l -> l.contains("Marked.run")), String.join("\n", lines));
  }

  private static long taskSamples(List<String> lines) {
    return Long.parseLong(lines.get(0).split(" ")[0]);
  }

  private static Path record(Path file) throws Exception {
    try (Recording recording = new Recording()) {
      recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
      recording.start();
      Thread task = new Thread(ProfileSummaryTest::busyTask, "Executor task launch worker for task 0.0");
      Thread marked = new Thread(Marked::run, "Executor task launch worker for task 1.0");
      Thread other = new Thread(ProfileSummaryTest::busyOther, "some other thread");
      task.start();
      marked.start();
      other.start();
      task.join();
      marked.join();
      other.join();
      recording.stop();
      recording.dump(file);
    }
    return file;
  }

  /** The classes a {@code through} filter names: a task busy through them. */
  private static final class Marked {
    static void run() {
      spin();
    }
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
