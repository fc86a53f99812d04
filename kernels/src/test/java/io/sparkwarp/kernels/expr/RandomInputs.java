package io.sparkwarp.kernels.expr;

import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.testing.RandomVectors;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;

/** The input schema random programs run over, and random vectors for it. */
final class RandomInputs {
  private RandomInputs() {}

  /** Every device type, plus the decimal types random programs compute with. */
  static List<DeviceType> types() {
    List<DeviceType> types = new ArrayList<>(Arrays.asList(RandomVectors.allTypes()));
    types.add(DeviceType.decimal(9, 2));
    types.add(DeviceType.decimal(12, 6));
    types.add(DeviceType.decimal(30, 4));
    return List.copyOf(types);
  }

  /** One random vector per type, a fifth of the values null; the caller closes them. */
  static List<FieldVector> vectors(List<DeviceType> types, int rows, Random rnd, BufferAllocator allocator) {
    List<FieldVector> vectors = new ArrayList<>();
    for (DeviceType t : types) vectors.add(RandomVectors.random(t, rows, 0.2, 12, rnd, allocator));
    return vectors;
  }
}
