package io.sparkwarp.examples;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where Spark's task threads spend their time, from a Java Flight Recording: the samples of threads whose name
 * starts with Spark's "Executor task launch worker", Java and native ones (a thread blocked in cuStreamSynchronize
 * or a socket read is a native sample), counted per stack of the top frames of this project and Spark (JDK and
 * Scala library frames folded into the caller), the most frequent first. A recording of a whole benchmark run is
 * tens of MB; this prints a few lines, so it can run where the recording was made and only the summary come back.
 *
 * <p>Record with {@code JAVA_OPTS="-XX:StartFlightRecording=filename=run.jfr,settings=profile"}, then run
 * {@code ProfileSummary run.jfr [frames=4] [lines=40] [through]}: with {@code through} (a class name prefix such as
 * {@code io.sparkwarp}) only samples whose stack passes through such a class count, which keeps the plugin's tasks
 * and drops vanilla Spark's of the same benchmark run.
 */
public final class ProfileSummary {
  private static final String TASK_THREAD = "Executor task launch worker";
  private static final List<String> FOLDED = List.of("java.", "jdk.", "sun.", "scala.");

  private ProfileSummary() {}

  public static void main(String[] args) throws IOException {
    if (args.length < 1) {
      System.err.println("usage: ProfileSummary RECORDING.jfr [frames=4] [lines=40] [through]");
      System.exit(2);
    }
    summarize(Path.of(args[0]), args.length > 1 ? Integer.parseInt(args[1]) : 4,
        args.length > 2 ? Integer.parseInt(args[2]) : 40, args.length > 3 ? args[3] : null)
        .forEach(System.out::println);
  }

  /**
   * The summary's lines: the count of task-thread samples (those through a class named {@code through}..., where
   * not null), then the {@code lines} most frequent stacks.
   */
  static List<String> summarize(Path recording, int frames, int lines, String through) throws IOException {
    Map<String, Long> stacks = new HashMap<>();
    long samples = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(recording)) {
      String type = e.getEventType().getName();
      if (!type.equals("jdk.ExecutionSample") && !type.equals("jdk.NativeMethodSample")) continue;
      if (e.getThread("sampledThread") == null || e.getStackTrace() == null) continue;
      String thread = e.getThread("sampledThread").getJavaName();
      if (thread == null || !thread.startsWith(TASK_THREAD)) continue;
      if (through != null && e.getStackTrace().getFrames().stream().noneMatch(f -> name(f).startsWith(through))) {
        continue;
      }
      samples++;
      stacks.merge((type.endsWith("NativeMethodSample") ? "native  " : "java    ") + top(e.getStackTrace(), frames),
          1L, Long::sum);
    }
    long total = Math.max(1, samples);
    List<String> out = new ArrayList<>();
    out.add(samples + " samples of task threads" + (through == null ? "" : " through " + through));
    stacks.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(lines)
        .forEach(s -> out.add(String.format(Locale.ROOT, "%5.1f%%  %s", 100.0 * s.getValue() / total, s.getKey())));
    return out;
  }

  /** The innermost frame, then the first {@code frames - 1} callers outside the JDK and Scala's library. */
  private static String top(RecordedStackTrace trace, int frames) {
    List<RecordedFrame> all = trace.getFrames();
    if (all.isEmpty()) return "?";
    List<String> kept = all.stream().skip(1).map(ProfileSummary::name)
        .filter(n -> FOLDED.stream().noneMatch(n::startsWith)).limit(frames - 1L).collect(Collectors.toList());
    kept.add(0, name(all.get(0)));
    return String.join(" < ", kept);
  }

  private static String name(RecordedFrame f) {
    return f.getMethod().getType().getName() + "." + f.getMethod().getName();
  }
}
