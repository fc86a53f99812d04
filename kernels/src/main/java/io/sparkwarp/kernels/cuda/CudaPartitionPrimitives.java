package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.memory.HostBlock;
import io.sparkwarp.kernels.partition.PartitionPrimitives;
import java.util.List;
import org.apache.arrow.memory.util.MemoryUtil;

/** {@link PartitionPrimitives} as launches of {@code partition.cu} and the scan of {@code scan.cu}. */
final class CudaPartitionPrimitives implements PartitionPrimitives {
  /** Rows a warp groups per tile: long enough that the count matrix stays small, short enough for many warps. */
  private static final int TILE_ROWS = 1024;
  /** The most cells of the (partition x tile) count matrix: 64 MiB of int32; more partitions get longer tiles. */
  private static final long MAX_CELLS = 1L << 24;

  private final CudaBackend backend;
  private final CudaScan scan;
  private final CudaKernel hash;
  private final CudaKernel pmod;
  private final CudaKernel count;
  private final CudaKernel starts;
  private final CudaKernel scatter;

  CudaPartitionPrimitives(CudaBackend backend, CudaModule module) {
    this.backend = backend;
    this.scan = new CudaScan(backend, module);
    hash = module.kernel("sw_partition_hash");
    pmod = module.kernel("sw_partition_pmod");
    count = module.kernel("sw_partition_count");
    starts = module.kernel("sw_partition_starts");
    scatter = module.kernel("sw_partition_scatter");
  }

  @Override
  public void hashPartitionIds(List<DeviceColumn> keys, int rows, int numPartitions, DeviceBuffer ids,
      DeviceStream stream) {
    PartitionPrimitives.checkHashArguments(keys, rows, numPartitions, ids);
    if (rows == 0) return;
    CudaStream s = CudaStream.of(stream);
    for (int k = 0; k < keys.size(); k++) {
      DeviceColumn key = keys.get(k);
      KernelArgs args = new KernelArgs().i32(key.type().kind().ordinal()).pointer(key.data())
          .pointer(key.validity());
      (key.type().isVariableWidth() ? args.pointer(key.offsets()) : args.address(0)).i64(rows).i32(k == 0 ? 1 : 0)
          .pointer(ids);
      hash.launchGridStride(rows, s, args);
    }
    pmod.launchGridStride(rows, s, new KernelArgs().pointer(ids).i64(rows).i32(numPartitions));
  }

  @Override
  public int[] groupByPartition(DeviceBuffer ids, int rows, int numPartitions, DeviceBuffer order,
      DeviceStream stream) {
    PartitionPrimitives.checkGroupArguments(ids, rows, numPartitions, order);
    int[] result = new int[numPartitions + 1];
    result[numPartitions] = rows;
    if (rows == 0) return result;
    // as many tiles as the matrix allows, each a whole number of warp steps
    long tiles = Math.max(1, Math.min((rows + TILE_ROWS - 1) / TILE_ROWS, MAX_CELLS / numPartitions));
    int tileRows = (int) (((rows + tiles - 1) / tiles + 31) / 32 * 32);
    tiles = (rows + tileRows - 1) / tileRows;
    long cells = tiles * numPartitions;
    CudaStream s = CudaStream.of(stream);
    try (DeviceBuffer positions = backend.allocate(4L * (cells + 1), stream);
        DeviceBuffer first = backend.allocate(4L * numPartitions, stream);
        HostBlock host = backend.transferMemory().pool().allocate(4L * numPartitions)) {
      backend.fill(positions, 0, 4L * cells, (byte) 0, stream);
      count.launchGridStride(32 * tiles, s, new KernelArgs().pointer(ids).i64(rows).i32(tileRows).i64(tiles)
          .pointer(positions));
      scan.exclusiveSum(positions, cells, stream);
      starts.launchGridStride(numPartitions, s, new KernelArgs().pointer(positions).i64(tiles).i32(numPartitions)
          .pointer(first));
      backend.copyDeviceToHost(first, 0, host.address(), 4L * numPartitions, stream);
      scatter.launchGridStride(32 * tiles, s, new KernelArgs().pointer(ids).i64(rows).i32(tileRows).i64(tiles)
          .pointer(positions).pointer(order));
      stream.synchronize();
      for (int p = 0; p < numPartitions; p++) result[p] = MemoryUtil.getInt(host.address() + 4L * p);
    }
    return result;
  }

}
