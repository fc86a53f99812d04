package io.sparkwarp.join;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.join.HashTable;
import io.sparkwarp.kernels.join.ProbeBatch;
import io.sparkwarp.kernels.join.ProbePosition;
import io.sparkwarp.kernels.join.ProbeResult;
import io.sparkwarp.kernels.join.ProbeVariant;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.Iterator;
import java.util.NoSuchElementException;

/**
 * Probes a build's table with one batch in chunks of at most {@code capacity} pairs: an iterator of {@link
 * ProbeResult}s (the caller closes each), and the metrics summed over the chunks it handed out.
 *
 * <p>The variant: as forced, or else push-down for a multi-match table whose longest bucket is more than {@link
 * #SKEW_LIMIT} rows (expansion divergence), refill when the batch has a selection (filter divergence), naive
 * otherwise (a unique table, or buckets short enough that lanes stay evenly loaded).
 */
public final class HashJoinProbe implements Iterator<ProbeResult> {
  /** The longest bucket a naive probe is chosen for. */
  public static final long SKEW_LIMIT = 4;

  private final Backend backend;
  private final HashTable table;
  private final ProbeBatch batch;
  private final int capacity;
  private final ProbeVariant variant;
  /** Where matched build rows are marked, or null. */
  private final DeviceBuffer buildMatches;
  private final DeviceStream stream;
  private ProbePosition next = ProbePosition.START;
  private boolean done;
  private long chunks;
  private long pairs;
  private long activeLanes;
  private long warpIterations;

  /**
   * @param forced the variant to run, or null to choose one from the table's statistics
   * @param buildMatches the bitmap in which to mark the build rows that match (not owned), or null
   */
  public HashJoinProbe(Backend backend, HashJoinBuild build, ProbeBatch batch, int capacity, ProbeVariant forced,
      DeviceBuffer buildMatches, DeviceStream stream) {
    this.backend = backend;
    this.table = build.table();
    this.batch = batch;
    this.capacity = capacity;
    this.variant = forced != null ? forced : choose(table, batch);
    this.buildMatches = buildMatches;
    this.stream = stream;
  }

  /** The variant the statistics call for. */
  static ProbeVariant choose(HashTable table, ProbeBatch batch) {
    if (!table.isUnique() && table.maxBucketLength() > SKEW_LIMIT) return ProbeVariant.PUSH_DOWN;
    return batch.selection() != null ? ProbeVariant.REFILL : ProbeVariant.NAIVE;
  }

  public ProbeVariant variant() {
    return variant;
  }

  @Override
  public boolean hasNext() {
    return !done;
  }

  /** The next chunk, which the caller closes. */
  @Override
  public ProbeResult next() {
    if (done) throw new NoSuchElementException("the probe has ended");
    ProbeResult r = backend.joins().probe(table, batch, next, capacity, variant, buildMatches, stream);
    chunks++;
    pairs += r.pairCount();
    activeLanes += r.activeLanes();
    warpIterations += r.warpIterations();
    next = r.next();
    done = r.isLast();
    return r;
  }

  /** The metrics of the chunks handed out so far. */
  public ProbeMetrics metrics() {
    return new ProbeMetrics(batch.rowCount(), chunks, pairs, variant, activeLanes, warpIterations);
  }
}
