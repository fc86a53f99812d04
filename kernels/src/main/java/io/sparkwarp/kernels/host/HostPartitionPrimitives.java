package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.partition.PartitionPrimitives;
import io.sparkwarp.kernels.partition.SparkMurmur3;
import java.util.List;
import org.apache.arrow.memory.util.MemoryUtil;

/** {@link PartitionPrimitives} as Java loops: the reference {@code partition.cu} is tested against. */
final class HostPartitionPrimitives implements PartitionPrimitives {
  @Override
  public void hashPartitionIds(List<DeviceColumn> keys, int rows, int numPartitions, int seed, DeviceBuffer ids,
      DeviceStream stream) {
    PartitionPrimitives.checkHashArguments(keys, rows, numPartitions, ids);
    long out = ids.address();
    for (int i = 0; i < rows; i++) MemoryUtil.putInt(out + 4L * i, seed);
    for (DeviceColumn key : keys) {
      for (int i = 0; i < rows; i++) {
        if (HostBatchPrimitives.getBit(key.validity().address(), i)) {
          long at = out + 4L * i;
          MemoryUtil.putInt(at, hash(key, i, MemoryUtil.getInt(at)));
        }
      }
    }
    for (int i = 0; i < rows; i++) {
      long at = out + 4L * i;
      int r = MemoryUtil.getInt(at) % numPartitions;
      MemoryUtil.putInt(at, r < 0 ? r + numPartitions : r);
    }
  }

  /** Spark's Murmur3Hash of value i of {@code column}, seeded with the running hash. */
  private static int hash(DeviceColumn column, int i, int seed) {
    long data = column.data().address();
    return switch (column.type().kind()) {
      case BOOLEAN -> SparkMurmur3.hashInt(HostBatchPrimitives.getBit(data, i) ? 1 : 0, seed);
      case BYTE -> SparkMurmur3.hashInt(MemoryUtil.getByte(data + i), seed);
      case SHORT -> SparkMurmur3.hashInt(MemoryUtil.getShort(data + 2L * i), seed);
      case INT, DATE -> SparkMurmur3.hashInt(MemoryUtil.getInt(data + 4L * i), seed);
      case FLOAT -> SparkMurmur3.hashInt(
          SparkMurmur3.floatBits(Float.intBitsToFloat(MemoryUtil.getInt(data + 4L * i))), seed);
      case DOUBLE -> SparkMurmur3.hashLong(
          SparkMurmur3.doubleBits(Double.longBitsToDouble(MemoryUtil.getLong(data + 8L * i))), seed);
      case LONG, TIMESTAMP, DECIMAL -> SparkMurmur3.hashLong(MemoryUtil.getLong(data + 8L * i), seed);
      case DECIMAL128 -> SparkMurmur3.hashWideDecimal(MemoryUtil.getLong(data + 16L * i),
          MemoryUtil.getLong(data + 16L * i + 8), seed);
      case STRING, BINARY -> {
        long offsets = column.offsets().address();
        int start = MemoryUtil.getInt(offsets + 4L * i);
        yield SparkMurmur3.hashBytes(data + start, MemoryUtil.getInt(offsets + 4L * i + 4) - start, seed);
      }
    };
  }

  @Override
  public void roundRobinPartitionIds(int rows, int first, int numPartitions, DeviceBuffer ids, DeviceStream stream) {
    PartitionPrimitives.checkGroupArguments(ids, rows, numPartitions, ids);
    for (int i = 0; i < rows; i++) MemoryUtil.putInt(ids.address() + 4L * i, Math.floorMod(first + i, numPartitions));
  }

  @Override
  public void rangePartitionIds(DeviceBuffer sorted, int rows, int bounds, DeviceBuffer ids, DeviceStream stream) {
    PartitionPrimitives.checkRangeArguments(sorted, rows, bounds, ids);
    int before = 0;
    for (long j = 0; j < (long) rows + bounds; j++) {
      int r = MemoryUtil.getInt(sorted.address() + 4 * j);
      if (r >= rows) {
        before++;
      } else if (r >= 0) {
        MemoryUtil.putInt(ids.address() + 4L * r, before);
      }
    }
  }

  @Override
  public int[] groupByPartition(DeviceBuffer ids, int rows, int numPartitions, DeviceBuffer order,
      DeviceStream stream) {
    PartitionPrimitives.checkGroupArguments(ids, rows, numPartitions, order);
    return HostStableGrouping.group(ids, rows, numPartitions, null, order);
  }

}
