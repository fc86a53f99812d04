package io.sparkwarp.kernels.partition;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import io.sparkwarp.kernels.testing.RandomVectors;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
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

  /** A copy of {@code v} whose row j is row order[j] of v. */
  static FieldVector reorder(FieldVector v, int[] order) {
    FieldVector out = v.getField().createVector(v.getAllocator());
    out.allocateNew();
    for (int j = 0; j < order.length; j++) out.copyFromSafe(order[j], j, v);
    out.setValueCount(order.length);
    return out;
  }

  static DeviceBuffer upload(Backend backend, int[] values, DeviceStream stream) {
    DeviceBuffer buffer = backend.allocate(4L * Math.max(1, values.length), stream);
    try (HostBlock staging = backend.transferMemory().pool().allocate(4L * Math.max(1, values.length))) {
      for (int i = 0; i < values.length; i++) MemoryUtil.putInt(staging.address() + 4L * i, values[i]);
      backend.copyHostToDevice(staging.address(), buffer, 0, 4L * values.length, stream);
      stream.synchronize();
    }
    return buffer;
  }

  static int[] download(Backend backend, DeviceBuffer buffer, int count, DeviceStream stream) {
    int[] values = new int[count];
    try (HostBlock staging = backend.transferMemory().pool().allocate(4L * Math.max(1, count))) {
      backend.copyDeviceToHost(buffer, 0, staging.address(), 4L * count, stream);
      stream.synchronize();
      for (int i = 0; i < count; i++) values[i] = MemoryUtil.getInt(staging.address() + 4L * i);
    }
    return values;
  }
}
