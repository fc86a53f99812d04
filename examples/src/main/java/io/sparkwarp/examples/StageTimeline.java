package io.sparkwarp.examples;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeoutException;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;

/**
 * The stages of a run as Spark's scheduler saw them: per stage its tasks, when the first was launched, the last was
 * launched and the last ended (milliseconds after the run's first launch), and the spread of its tasks' times. A
 * second wave of tasks shows as a last launch well after the first: where a query's time goes that the operators'
 * metrics, summed over tasks, do not show.
 */
public final class StageTimeline extends SparkListener {
  private static final long LISTENER_WAIT_MS = 60_000;
  /** Per stage, {launch, finish} of each of its tasks (epoch milliseconds). */
  private final Map<Integer, List<long[]>> tasks = new TreeMap<>();

  private StageTimeline() {}

  @Override
  public synchronized void onTaskEnd(SparkListenerTaskEnd end) {
    tasks.computeIfAbsent(end.stageId(), s -> new ArrayList<>())
        .add(new long[] {end.taskInfo().launchTime(), end.taskInfo().finishTime()});
  }

  /** Runs {@code action} while listening; one line per stage it ran, in the order the stages began. */
  public static List<String> of(SparkSession spark, Runnable action) {
    StageTimeline timeline = new StageTimeline();
    spark.sparkContext().addSparkListener(timeline);
    try {
      action.run();
      spark.sparkContext().listenerBus().waitUntilEmpty(LISTENER_WAIT_MS);
    } catch (TimeoutException e) {
      throw new IllegalStateException("Spark's listener bus did not drain in " + LISTENER_WAIT_MS + " ms", e);
    } finally {
      spark.sparkContext().removeSparkListener(timeline);
    }
    synchronized (timeline) {
      return describe(timeline.tasks);
    }
  }

  /** The lines of {@link #of} for tasks given per stage as {launch, finish}. */
  static List<String> describe(Map<Integer, List<long[]>> tasks) {
    List<long[]> stages = new ArrayList<>();  // {stage, first launch, last launch, last end, tasks, min, median, max}
    tasks.forEach((stage, own) -> {
      long[] took = own.stream().mapToLong(t -> t[1] - t[0]).sorted().toArray();
      stages.add(new long[] {stage, own.stream().mapToLong(t -> t[0]).min().orElseThrow(),
          own.stream().mapToLong(t -> t[0]).max().orElseThrow(), own.stream().mapToLong(t -> t[1]).max().orElseThrow(),
          own.size(), took[0], took[(took.length - 1) / 2], took[took.length - 1]});
    });
    stages.sort(Comparator.comparingLong(st -> st[1]));
    long origin = stages.isEmpty() ? 0 : stages.get(0)[1];
    return stages.stream().map(st -> String.format("stage %d: %d tasks, launched +%d to +%d ms, done +%d ms; a task "
        + "took %d ms at least, %d median, %d at most", st[0], st[4], st[1] - origin, st[2] - origin, st[3] - origin,
        st[5], st[6], st[7])).toList();
  }
}
