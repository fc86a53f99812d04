package io.sparkwarp.join;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.kernels.join.ProbeBatch;
import io.sparkwarp.kernels.join.ProbeResult;
import io.sparkwarp.kernels.join.ProbeVariant;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.List;
import java.util.function.Consumer;

/**
 * One equi-join over device batches. The build side is one batch with its hash table; each stream batch is probed
 * in chunks of at most {@code chunkPairs} pairs (so one key matching 10^8 rows streams out in bounded pieces), and
 * every chunk becomes an output batch: the probe and build rows gathered, left columns then right. Rows without a
 * match come from match bitmaps: a stream batch's right after its probe (outer on the stream side; semi and anti
 * joins streaming the left side), the build side's once, in {@link #finish} (outer on the build side; semi and anti
 * joins building the left side).
 *
 * <p>Without a residual condition the probe kernel marks matched rows as it finds them. With one, a key match is
 * no match until the condition holds: each chunk's pairs go through the condition first ({@link ResidualFilter}),
 * and only the pairs that pass are emitted and mark their rows.
 *
 * <p>Not thread-safe: one task joins its stream batches one after another on its stream. Owns the bitmap of build
 * rows matched so far (when the join type needs it), freed by {@link #close}.
 */
public final class DeviceHashJoin implements StreamedJoin {
  private final Backend backend;
  private final DeviceBatch build;
  private final JoinKeys buildKeys;
  private final HashJoinBuild table;
  private final JoinType type;
  private final JoinType.Side buildSide;
  /** The residual condition's evaluation, or null for a join on the keys alone. */
  private final ResidualFilter residual;
  private final List<DeviceType> streamTypes;
  private final int chunkPairs;
  private final ProbeVariant forced;
  private final DeviceStream stream;
  /** Build rows that matched in any stream batch so far, or null when their matches decide nothing. */
  private final DeviceBuffer buildMatches;
  private final JoinOutput output;
  private ProbeMetrics metrics = ProbeMetrics.NONE;

  /**
   * @param build the build side; output batches are gathered from it, so it stays open (the caller's) until this
   *     join closes
   * @param buildKeys key columns of {@code build}
   * @param table the table over {@code buildKeys} (the caller's; probes only read it, so joins may share it)
   * @param condition the residual condition, or null
   * @param streamTypes the stream side's column types (the nulls of build-side outer rows)
   * @param forced a probe variant to force (for measurement), or null to let each probe choose
   */
  public DeviceHashJoin(Backend backend, DeviceBatch build, JoinKeys buildKeys, HashJoinBuild table, JoinType type,
      JoinType.Side buildSide, JoinCondition condition, List<DeviceType> streamTypes, int chunkPairs,
      ProbeVariant forced, DeviceStream stream) {
    this.backend = backend;
    this.build = build;
    this.buildKeys = buildKeys;
    this.type = type;
    this.buildSide = buildSide;
    this.streamTypes = List.copyOf(streamTypes);
    List<DeviceType> buildTypes = JoinOutput.types(build);
    this.residual = condition == null ? null : new ResidualFilter(backend, condition, buildSide, buildTypes,
        this.streamTypes, stream);
    this.chunkPairs = chunkPairs;
    this.forced = forced;
    this.stream = stream;
    this.table = table;
    this.output = new JoinOutput(backend, type, buildSide == JoinType.Side.LEFT ? buildTypes : this.streamTypes,
        buildSide == JoinType.Side.LEFT ? this.streamTypes : buildTypes, stream);
    this.buildMatches = tracksBuildMatches() ? output.zeroedBitmap(build.rowCount()) : null;
  }

  /**
   * Whether build rows without a match decide output (see the class comment): then the stream side's rows must all
   * be probed by one join, so its build cannot serve several tasks that each see only part of the stream side.
   */
  public static boolean tracksBuildMatches(JoinType type, JoinType.Side buildSide) {
    return type.keepsUnmatched(buildSide) || (!type.outputsRight() && buildSide == JoinType.Side.LEFT);
  }

  private JoinType.Side streamSide() {
    return buildSide == JoinType.Side.LEFT ? JoinType.Side.RIGHT : JoinType.Side.LEFT;
  }

  private boolean semiOrAnti() {
    return !type.outputsRight();
  }

  /**
   * Whether a stream row's output depends on all of its matches (outer on the stream side, or semi/anti streaming
   * the left side): then each stream row must be probed by one join that holds all its key's build rows.
   */
  public static boolean tracksStreamMatches(JoinType type, JoinType.Side buildSide) {
    JoinType.Side streamSide = buildSide == JoinType.Side.LEFT ? JoinType.Side.RIGHT : JoinType.Side.LEFT;
    return type.keepsUnmatched(streamSide) || (!type.outputsRight() && streamSide == JoinType.Side.LEFT);
  }

  /** The stream side's rows decide output after its probe: outer on it, or semi/anti streaming the left side. */
  private boolean tracksStreamMatches() {
    return tracksStreamMatches(type, buildSide);
  }

  /** The build side's rows decide output at the end: outer on it, or semi/anti building the left side. */
  private boolean tracksBuildMatches() {
    return tracksBuildMatches(type, buildSide);
  }

  @Override
  public void join(DeviceBatch streamBatch, JoinKeys streamKeys, Consumer<DeviceBatch> out) {
    buildKeys.checkComparable(streamKeys);
    if (streamBatch.rowCount() == 0) return;
    // without a condition the probe kernel marks the rows it matches; with one, only passing pairs may mark them
    boolean kernelMarks = residual == null;
    try (ProbeBatch probe = new ProbeBatch(backend, streamKeys, null, kernelMarks && tracksStreamMatches(), stream);
        DeviceBuffer passedStream = !kernelMarks && tracksStreamMatches()
            ? output.zeroedBitmap(streamBatch.rowCount()) : null) {
      HashJoinProbe chunks = new HashJoinProbe(backend, table, probe, chunkPairs, forced,
          kernelMarks ? buildMatches : null, stream);
      while (chunks.hasNext()) {
        try (ProbeResult r = chunks.next()) {
          if (kernelMarks) {
            if (!semiOrAnti() && r.pairCount() > 0) out.accept(pairs(streamBatch, r.probeRows(), r.buildRows(),
                r.pairCount()));
          } else if (r.pairCount() > 0) {
            joinPassing(streamBatch, r, passedStream, out);
          }
        }
      }
      metrics = metrics.plus(chunks.metrics());
      if (tracksStreamMatches()) {
        // a semi join keeps the matched stream rows; anti and outer joins the unmatched ones
        output.unmatchedOrSemi(streamBatch, kernelMarks ? probe.matches() : passedStream, streamSide(), out);
      }
    }
  }

  /** One chunk's pairs through the residual condition: the passing ones mark their rows and are emitted. */
  private void joinPassing(DeviceBatch streamBatch, ProbeResult chunk, DeviceBuffer passedStream,
      Consumer<DeviceBatch> out) {
    try (DeviceBatch passing = residual.passing(streamBatch, build, chunk.probeRows(), chunk.buildRows(),
        chunk.pairCount())) {
      int count = passing.rowCount();
      if (count == 0) return;
      DeviceBuffer streamRows = ResidualFilter.streamRows(passing);
      DeviceBuffer buildRows = ResidualFilter.buildRows(passing);
      if (passedStream != null) backend.joins().markRows(passedStream, streamRows, count, stream);
      if (buildMatches != null) backend.joins().markRows(buildMatches, buildRows, count, stream);
      if (!semiOrAnti()) out.accept(pairs(streamBatch, streamRows, buildRows, count));
    }
  }

  /** After the last stream batch: the build rows that decide output on their own (see the class comment). */
  @Override
  public void finish(Consumer<DeviceBatch> out) {
    if (tracksBuildMatches()) output.unmatchedOrSemi(build, buildMatches, buildSide, out);
  }

  /** What the probes did so far: rows, chunks, matches, the variant and the lanes kept busy. */
  @Override
  public ProbeMetrics metrics() {
    return metrics;
  }

  @Override
  public void close() {
    if (buildMatches != null) buildMatches.close();
  }

  /** Stream and build rows gathered pairwise, laid out left then right. */
  private DeviceBatch pairs(DeviceBatch streamBatch, DeviceBuffer streamRows, DeviceBuffer buildRows, int count) {
    return buildSide == JoinType.Side.RIGHT ? output.pairs(streamBatch, streamRows, build, buildRows, count)
        : output.pairs(build, buildRows, streamBatch, streamRows, count);
  }
}
