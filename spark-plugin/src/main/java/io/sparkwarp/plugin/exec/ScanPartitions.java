package io.sparkwarp.plugin.exec;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import org.apache.spark.Partition;
import org.apache.spark.sql.execution.datasources.FilePartition;
import org.apache.spark.sql.execution.datasources.PartitionedFile;

/**
 * A GPU scan's file splits regrouped into partitions of even size, as many as the cluster has task slots or a
 * multiple of that (spark.warp.parquet.partitionBytes). Spark packs splits into partitions of at most
 * {@code spark.sql.files.maxPartitionBytes} (128 MiB), which suits its CPU reader, whose time grows with the bytes; a
 * table a little larger than the slots times that runs as a full wave and a second one of few tasks, which for a GPU
 * scan sharing one device costs about as long as the first (TPC-H SF10 lineitem, every column: 24 partitions on 16
 * slots, 943 ms; regrouped into 16, 524 ms). Splits stay as Spark cut them, in Spark's order within a partition.
 */
final class ScanPartitions {
  private ScanPartitions() {}

  /**
   * Spark's partitions regrouped: {@code slots} of them, or the smallest multiple of {@code slots} whose partitions
   * hold at most {@code maxBytes}, but no more than there are splits; each split weighs its length plus
   * {@code openCost} (Spark's estimate of a file's opening), and the heaviest go first to the lightest partition.
   */
  static Partition[] balance(Partition[] spark, int slots, long maxBytes, long openCost) {
    List<PartitionedFile> files = new ArrayList<>();
    for (Partition p : spark) files.addAll(Arrays.asList(((FilePartition) p).files()));
    long[] weights = files.stream().mapToLong(f -> f.length() + openCost).toArray();
    int bins = count(Arrays.stream(weights).sum(), slots, maxBytes, files.size());
    int[] bin = bins(weights, bins);  // every one of the bins gets a split: there are at least as many
    List<List<PartitionedFile>> grouped = new ArrayList<>();
    for (int b = 0; b < bins; b++) grouped.add(new ArrayList<>());
    for (int i = 0; i < files.size(); i++) grouped.get(bin[i]).add(files.get(i));
    Partition[] out = new Partition[bins];
    for (int b = 0; b < bins; b++) out[b] = new FilePartition(b, grouped.get(b).toArray(PartitionedFile[]::new));
    return out;
  }

  /**
   * How many partitions {@code total} bytes of {@code splits} splits make: the slots, times the waves needed to keep
   * partitions within {@code maxBytes}, at most one a split.
   */
  static int count(long total, int slots, long maxBytes, int splits) {
    long perWave = maxBytes > Long.MAX_VALUE / slots ? Long.MAX_VALUE : slots * maxBytes;
    long waves = Math.max(1, total / perWave + (total % perWave == 0 ? 0 : 1));
    return (int) Math.min(splits, Math.min(Integer.MAX_VALUE, waves * slots));
  }

  /**
   * Per weight, its bin of {@code bins}: longest-processing-time-first (the heaviest weight to the lightest bin, ties
   * to the bin of fewer weights, then the lower), which leaves the heaviest bin within 4/3 of the best. Every bin
   * gets a weight when there are at least as many weights as bins.
   */
  static int[] bins(long[] weights, int bins) {
    Integer[] order = new Integer[weights.length];
    Arrays.setAll(order, i -> i);
    Arrays.sort(order, Comparator.comparingLong((Integer i) -> -weights[i]).thenComparingInt(i -> i));
    // {load, weights, bin}: among equal loads the bin with fewer weights, so weights of 0 spread too
    PriorityQueue<long[]> loads = new PriorityQueue<>(Math.max(1, bins), Comparator.<long[]>comparingLong(l -> l[0])
        .thenComparingLong(l -> l[1]).thenComparingLong(l -> l[2]));
    for (int b = 0; b < bins; b++) loads.add(new long[] {0, 0, b});
    int[] bin = new int[weights.length];
    for (int i : order) {
      long[] lightest = loads.poll();
      bin[i] = (int) lightest[2];
      lightest[0] += weights[i];
      lightest[1]++;
      loads.add(lightest);
    }
    return bin;
  }
}
