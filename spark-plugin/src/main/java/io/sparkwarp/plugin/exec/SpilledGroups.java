package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.partition.PartitionedBatch;
import io.sparkwarp.plugin.runtime.TaskGpu;
import io.sparkwarp.plugin.shuffle.ColumnarSlices;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.types.pojo.Schema;

/**
 * Aggregation buffers moved off the device, split by their grouping keys: a final aggregate whose groups outgrow its
 * device memory hash-partitions each pile of buffers by Spark's murmur3 of the keys into {@link #buckets()}
 * buckets (on the device, as the shuffle does), downloads them and keeps each bucket's rows as serialized slices in
 * host memory. A group's buffers all land in one bucket, so each bucket is merged and finished on its own, one at a
 * time, with a bucket's share of the memory. A bucket still too large is split again the same way, with another
 * prime bucket count ({@link #split}).
 */
final class SpilledGroups {
  /**
   * Candidate bucket counts: primes, so that a bucket count sharing no factor with the upstream shuffle's partition
   * count splits this task's keys evenly (its keys all have one murmur3 residue modulo that count).
   */
  private static final int[] BUCKET_COUNTS = {31, 37, 41, 43, 47};

  private final int[] keyColumns;
  private final List<String> names;
  /** The product of the moduli the rows were already routed by (the upstream shuffle's, outer buckets'). */
  private final long routedBy;
  private final List<List<byte[]>> slices = new ArrayList<>();
  private Schema schema;
  private long bytes;

  /**
   * @param keys the leading grouping-key columns of every batch added
   * @param routedBy the hash partition count that routed rows to this task (1 when unknown), times the bucket
   *     counts of the buckets these rows came from
   */
  SpilledGroups(int keys, long routedBy, List<String> names) {
    this.keyColumns = IntStream.range(0, keys).toArray();
    this.names = List.copyOf(names);
    this.routedBy = routedBy;
    int buckets = IntStream.of(BUCKET_COUNTS).filter(b -> routedBy % b != 0).findFirst().orElse(BUCKET_COUNTS[0]);
    for (int b = 0; b < buckets; b++) slices.add(new ArrayList<>());
  }

  int buckets() {
    return slices.size();
  }

  /** Bytes of the slices held. */
  long bytes() {
    return bytes;
  }

  /** Bytes of bucket {@code b}'s slices. */
  long bytes(int b) {
    return slices.get(b).stream().mapToLong(s -> s.length).sum();
  }

  /**
   * Bucket {@code b}'s rows split again into buckets of their own, uploaded and partitioned about
   * {@code pieceBytes} at a time; its slices here are released.
   */
  SpilledGroups split(int b, long pieceBytes, TaskGpu gpu) {
    SpilledGroups inner = new SpilledGroups(keyColumns.length, routedBy * buckets(), names);
    List<byte[]> bucket = slices.set(b, new ArrayList<>());
    int from = 0;
    while (from < bucket.size()) {
      int to = from;
      long size = 0;
      while (to < bucket.size() && (to == from || size + bucket.get(to).length <= pieceBytes)) {
        size += bucket.get(to++).length;
      }
      gpu.acquireDevice();
      inner.add(DeviceBatches.upload(schema, bucket.subList(from, to), gpu), gpu);
      bytes -= size;
      from = to;
    }
    return inner;
  }

  /** Moves {@code groups}' rows (closed here) into the buckets of their keys. */
  void add(DeviceBatch groups, TaskGpu gpu) {
    DeviceBatches.Downloaded host;
    try (DeviceBatch in = groups;
        PartitionedBatch split = PartitionedBatch.hash(gpu.backend(), in, keyColumns, buckets(), gpu.stream())) {
      host = DeviceBatches.download(split.batch(), names, gpu);
      try {
        List<FieldVector> columns = host.vectors();
        if (schema == null) schema = new Schema(columns.stream().map(FieldVector::getField).toList());
        byte[][] cut = ColumnarSlices.ranges(columns, split.starts());
        for (int b = 0; b < cut.length; b++) {
          if (cut[b] == null) continue;
          slices.get(b).add(cut[b]);
          bytes += cut[b].length;
        }
      } finally {
        Closeables.closeAll(host.vectors());
      }
    }
  }

  /** Bucket {@code b}'s rows as one device batch, its host slices released; null when the bucket is empty. */
  DeviceBatch take(int b, TaskGpu gpu) {
    List<byte[]> bucket = slices.set(b, new ArrayList<>());
    if (bucket.isEmpty()) return null;
    bytes -= bucket.stream().mapToLong(s -> s.length).sum();
    return DeviceBatches.upload(schema, bucket, gpu);
  }
}
