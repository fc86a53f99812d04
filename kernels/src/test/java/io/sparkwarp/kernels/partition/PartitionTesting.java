package io.sparkwarp.kernels.partition;

import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.testing.RandomVectors;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/** Inputs and reference results shared by the partition tests. */
final class PartitionTesting {
  private PartitionTesting() {}

  /** Partition p's rows are order[starts[p], starts[p + 1]). */
  record Grouping(int[] starts, int[] order) {}

  /** The stable counting sort of rows by id: the reference grouping. */
  static Grouping stableGrouping(int[] ids, int partitions) {
    int[] starts = new int[partitions + 1];
    for (int id : ids) starts[id + 1]++;
    for (int p = 0; p < partitions; p++) starts[p + 1] += starts[p];
    int[] next = starts.clone();
    int[] order = new int[ids.length];
    for (int i = 0; i < ids.length; i++) order[next[ids[i]]++] = i;
    return new Grouping(starts, order);
  }

  /** Ids in [0, partitions), half of them 0: a heavy partition among light ones. */
  static int[] skewedIds(int rows, int partitions, Random rnd) {
    return IntStream.range(0, rows).map(i -> rnd.nextBoolean() ? 0 : rnd.nextInt(partitions)).toArray();
  }

  /** One random column of every device type, 10% nulls, the last one a 128-bit decimal. */
  static List<FieldVector> randomColumns(int rows, Random rnd, BufferAllocator allocator) {
    List<DeviceType> types = new ArrayList<>(List.of(RandomVectors.allTypes()));
    types.add(DeviceType.decimal(30, 4));
    List<FieldVector> columns = new ArrayList<>();
    for (DeviceType type : types) columns.add(RandomVectors.random(type, rows, 0.1, 40, rnd, allocator));
    return columns;
  }

  static List<String> names(List<FieldVector> columns) {
    return columns.stream().map(FieldVector::getName).toList();
  }
}
