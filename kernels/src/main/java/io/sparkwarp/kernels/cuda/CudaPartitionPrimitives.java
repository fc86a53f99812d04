package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import io.sparkwarp.kernels.partition.PartitionPrimitives;
import java.util.List;
import org.apache.arrow.memory.util.MemoryUtil;

/** {@link PartitionPrimitives} as launches of {@code partition.cu} and the grouping of {@code grouping.cu}. */
final class CudaPartitionPrimitives implements PartitionPrimitives {
  private final CudaBackend backend;
  private final CudaStableGrouping grouping;
  private final CudaKernel hash;
  private final CudaKernel pmod;
  private final CudaKernel roundRobin;
  private final CudaScan scan;
  private final CudaKernel boundFlags;
  private final CudaKernel rangeIds;

  CudaPartitionPrimitives(CudaBackend backend, CudaModule module, CudaStableGrouping grouping) {
    this.backend = backend;
    this.grouping = grouping;
    hash = module.kernel("sw_partition_hash");
    pmod = module.kernel("sw_partition_pmod");
    roundRobin = module.kernel("sw_partition_round_robin");
    scan = new CudaScan(backend, module);
    boundFlags = module.kernel("sw_partition_bound_flags");
    rangeIds = module.kernel("sw_partition_range_ids");
  }

  @Override
  public void hashPartitionIds(List<DeviceColumn> keys, int rows, int numPartitions, int seed, DeviceBuffer ids,
      DeviceStream stream) {
    PartitionPrimitives.checkHashArguments(keys, rows, numPartitions, ids);
    if (rows == 0) return;
    CudaStream s = CudaStream.of(stream);
    for (int k = 0; k < keys.size(); k++) {
      DeviceColumn key = keys.get(k);
      KernelArgs args = new KernelArgs().i32(key.type().kind().ordinal()).pointer(key.data())
          .pointer(key.validity());
      (key.type().isVariableWidth() ? args.pointer(key.offsets()) : args.address(0)).i64(rows).i32(k == 0 ? 1 : 0)
          .i32(seed).pointer(ids);
      hash.launchGridStride(rows, s, args);
    }
    pmod.launchGridStride(rows, s, new KernelArgs().pointer(ids).i64(rows).i32(numPartitions));
  }

  @Override
  public void roundRobinPartitionIds(int rows, int first, int numPartitions, DeviceBuffer ids, DeviceStream stream) {
    PartitionPrimitives.checkGroupArguments(ids, rows, numPartitions, ids);
    if (rows == 0) return;
    roundRobin.launchGridStride(rows, CudaStream.of(stream), new KernelArgs().pointer(ids).i64(rows).i32(first)
        .i32(numPartitions));
  }

  @Override
  public void rangePartitionIds(DeviceBuffer sorted, int rows, int bounds, DeviceBuffer ids, DeviceStream stream) {
    PartitionPrimitives.checkRangeArguments(sorted, rows, bounds, ids);
    long n = (long) rows + bounds;
    if (rows == 0) return;
    CudaStream s = CudaStream.of(stream);
    try (DeviceBuffer before = backend.allocate(4L * (n + 1), stream)) {
      boundFlags.launchGridStride(n, s, new KernelArgs().pointer(sorted).i64(n).i32(rows).pointer(before));
      scan.exclusiveSum(before, n, stream);
      rangeIds.launchGridStride(n, s, new KernelArgs().pointer(sorted).pointer(before).i64(n).i32(rows)
          .pointer(ids));
    }
  }

  @Override
  public int[] groupByPartition(DeviceBuffer ids, int rows, int numPartitions, DeviceBuffer order,
      DeviceStream stream) {
    PartitionPrimitives.checkGroupArguments(ids, rows, numPartitions, order);
    int[] result = new int[numPartitions + 1];
    result[numPartitions] = rows;
    if (rows == 0) return result;
    try (DeviceBuffer first = backend.allocate(4L * numPartitions, stream);
        HostBlock host = backend.transferMemory().pool().allocate(4L * numPartitions)) {
      grouping.group(ids, rows, numPartitions, null, order, first, stream);
      backend.copyDeviceToHost(first, 0, host.address(), 4L * numPartitions, stream);
      stream.synchronize();
      for (int p = 0; p < numPartitions; p++) result[p] = MemoryUtil.getInt(host.address() + 4L * p);
    }
    return result;
  }
}
