package io.sparkwarp.plugin.exec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.Partition;
import org.apache.spark.paths.SparkPath;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.execution.datasources.FilePartition;
import org.apache.spark.sql.execution.datasources.PartitionedFile;
import org.junit.jupiter.api.Test;
import scala.collection.immutable.Map$;

class ScanPartitionsTest {
  private static final long MB = 1 << 20;

  @Test
  void tpchLineitemAtScaleTenBecomesOneWave() {
    // 120 files of 19 MB that Spark packs five to a partition: 24 partitions on 16 slots
    List<Partition> spark = new ArrayList<>();
    for (int p = 0; p < 24; p++) {
      PartitionedFile[] files = new PartitionedFile[5];
      for (int f = 0; f < 5; f++) files[f] = file("part-" + (p * 5 + f), 0, 19 * MB);
      spark.add(new FilePartition(p, files));
    }
    Partition[] out = ScanPartitions.balance(spark.toArray(Partition[]::new), 16, 1L << 30, 4 * MB);
    assertEquals(16, out.length);
    int[] counts = Arrays.stream(out).mapToInt(p -> ((FilePartition) p).files().length).sorted().toArray();
    assertEquals(7, counts[0]);
    assertEquals(8, counts[15]);
    assertEquals(120, Arrays.stream(counts).sum());
    for (int i = 0; i < out.length; i++) assertEquals(i, out[i].index());
  }

  @Test
  void everySplitLandsOnceAndKeepsSparksOrderWithinItsPartition() {
    SplittableRandom random = new SplittableRandom(7);
    List<Partition> spark = new ArrayList<>();
    List<String> all = new ArrayList<>();
    for (int p = 0; p < 37; p++) {
      PartitionedFile[] files = new PartitionedFile[1 + random.nextInt(6)];
      for (int f = 0; f < files.length; f++) {
        String name = "f" + all.size();
        files[f] = file(name, random.nextInt(3) * 64 * MB, 1 + random.nextLong(128 * MB));
        all.add(name);
      }
      spark.add(new FilePartition(p, files));
    }
    Partition[] out = ScanPartitions.balance(spark.toArray(Partition[]::new), 8, 256 * MB, 4 * MB);
    List<String> seen = new ArrayList<>();
    for (Partition p : out) {
      List<String> names = Arrays.stream(((FilePartition) p).files()).map(f -> f.filePath().toString()).toList();
      List<Integer> positions = names.stream().map(n -> all.indexOf(n.substring(n.lastIndexOf('/') + 1))).toList();
      assertEquals(positions.stream().sorted().toList(), positions, "Spark's order within a partition");
      seen.addAll(names);
    }
    assertEquals(all.size(), seen.size());
    assertEquals(all.size(), seen.stream().distinct().count());
    assertEquals(0, out.length % 8, "whole waves of 8 slots");
  }

  @Test
  void partitionsGrowByWholeWavesAndNeverOutnumberSplits() {
    assertEquals(16, ScanPartitions.count(2_750 * MB, 16, 1L << 30, 120));
    assertEquals(32, ScanPartitions.count(17L << 30, 16, 1L << 30, 1000));
    assertEquals(16, ScanPartitions.count(16L << 30, 16, 1L << 30, 1000));
    assertEquals(3, ScanPartitions.count(100 * MB, 16, 1L << 30, 3));
    assertEquals(0, ScanPartitions.count(0, 16, 1L << 30, 0));
    assertEquals(16, ScanPartitions.count(Long.MAX_VALUE / 2, 16, Long.MAX_VALUE, 1000), "no overflow");
  }

  @Test
  void theHeaviestPartitionWasTheLightestWhenItGotItsLastSplit() {
    SplittableRandom random = new SplittableRandom(11);
    for (int round = 0; round < 50; round++) {
      int bins = 1 + random.nextInt(20);
      long[] weights = random.longs(bins + random.nextInt(200), 0, 1_000_000).toArray();
      int[] bin = ScanPartitions.bins(weights, bins);
      long[] loads = new long[bins];
      long[] smallest = new long[bins];
      Arrays.fill(smallest, Long.MAX_VALUE);
      for (int i = 0; i < weights.length; i++) {
        loads[bin[i]] += weights[i];
        smallest[bin[i]] = Math.min(smallest[bin[i]], weights[i]);
      }
      int heaviest = 0;
      for (int b = 1; b < bins; b++) heaviest = loads[b] > loads[heaviest] ? b : heaviest;
      // its last (smallest) split went to the lightest partition, lighter than the final mean
      long mean = Arrays.stream(weights).sum() / bins;
      assertTrue(loads[heaviest] - smallest[heaviest] <= mean, loads[heaviest] + " against a mean of " + mean);
      assertEquals(bins, Arrays.stream(bin).distinct().count(), "every bin used");
    }
  }

  @Test
  void weightsOfZeroStillSpread() {
    assertArrayEquals(new int[] {0, 1, 2, 0}, ScanPartitions.bins(new long[] {0, 0, 0, 0}, 3));
  }

  @Test
  void noFilesNoPartitions() {
    assertEquals(0, ScanPartitions.balance(new Partition[0], 16, 1L << 30, 4 * MB).length);
    assertEquals(0, ScanPartitions.balance(new Partition[] {new FilePartition(0, new PartitionedFile[0])}, 16,
        1L << 30, 4 * MB).length);
  }

  private static PartitionedFile file(String name, long start, long length) {
    return new PartitionedFile(InternalRow.empty(), SparkPath.fromUrlString("file:/data/" + name), start, length,
        new String[0], 0, start + length, Map$.MODULE$.empty());
  }
}
