package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.join.HashTable;
import io.sparkwarp.kernels.join.JoinKernels;
import io.sparkwarp.kernels.join.JoinKeys;
import io.sparkwarp.kernels.join.ProbeBatch;
import io.sparkwarp.kernels.join.ProbeVariant;
import io.sparkwarp.kernels.join.TableKind;
import io.sparkwarp.kernels.memory.DeviceBuffer;

/** {@link JoinKernels} as launches of {@code join.cu}, {@code scan.cu} and the gathers of {@code select.cu}. */
final class CudaJoinKernels implements JoinKernels {
  /** join.cu HEAVY_RANGE: push-down defers probe rows with more candidates to sw_join_probe_heavy. */
  static final long HEAVY_RANGE = 4096;
  /** Bytes of a join.cu HeavyPiece (row, lo, hi). */
  private static final long HEAVY_PIECE_BYTES = 24;

  private final CudaBackend backend;
  private final CudaScan scan;
  private final CudaRowGather gather;
  private final CudaKernel hash;
  private final CudaKernel insertUnique;
  private final CudaKernel countBuckets;
  private final CudaKernel scatterBuckets;
  private final CudaKernel bucketStats;
  private final CudaKernel candidateCounts;
  private final CudaKernel probeUniqueNaive;
  private final CudaKernel probeUniqueRefill;
  private final CudaKernel probeMultiNaive;
  private final CudaKernel probeMultiPushDown;
  private final CudaKernel probeMultiRefill;
  private final CudaKernel probeHeavy;
  private final CudaKernel markRows;

  CudaJoinKernels(CudaBackend backend, CudaModule module) {
    this.backend = backend;
    scan = new CudaScan(backend, module);
    gather = new CudaRowGather(backend, module, scan);
    hash = module.kernel("sw_join_hash");
    insertUnique = module.kernel("sw_join_unique_insert");
    countBuckets = module.kernel("sw_join_bucket_count");
    scatterBuckets = module.kernel("sw_join_bucket_scatter");
    bucketStats = module.kernel("sw_join_bucket_stats");
    candidateCounts = module.kernel("sw_join_candidate_counts");
    probeUniqueNaive = module.kernel("sw_join_probe_unique_naive");
    probeUniqueRefill = module.kernel("sw_join_probe_unique_refill");
    probeMultiNaive = module.kernel("sw_join_probe_multi_naive");
    probeMultiPushDown = module.kernel("sw_join_probe_multi_push_down");
    probeMultiRefill = module.kernel("sw_join_probe_multi_refill");
    probeHeavy = module.kernel("sw_join_probe_heavy");
    markRows = module.kernel("sw_join_mark_rows");
  }

  @Override
  public void hash(JoinKeys keys, DeviceBuffer hashes, DeviceStream stream) {
    hash.launchGridStride(keys.rowCount(), CudaStream.of(stream), new KernelArgs().struct(keys.abi())
        .i64(keys.rowCount()).pointer(hashes));
  }

  @Override
  public void insertUnique(JoinKeys keys, DeviceBuffer slots, long mask, DeviceBuffer status, DeviceStream stream) {
    slots.checkRange(0, 8 * (mask + 1));
    status.checkRange(0, 8);
    insertUnique.launchGridStride(keys.rowCount(), CudaStream.of(stream), new KernelArgs()
        .struct(keys.abi()).i64(keys.rowCount()).pointer(slots).i64(mask).pointer(status));
  }

  @Override
  public void countBuckets(JoinKeys keys, DeviceBuffer counts, long mask, DeviceStream stream) {
    counts.checkRange(0, 4 * (mask + 1));
    countBuckets.launchGridStride(keys.rowCount(), CudaStream.of(stream), new KernelArgs()
        .struct(keys.abi()).i64(keys.rowCount()).pointer(counts).i64(mask));
  }

  @Override
  public void exclusiveSum(DeviceBuffer values, long n, DeviceStream stream) {
    scan.exclusiveSum(values, n, stream);
  }

  @Override
  public void scatterBuckets(JoinKeys keys, DeviceBuffer cursor, long mask, DeviceBuffer entries,
      DeviceStream stream) {
    cursor.checkRange(0, 4 * (mask + 1));
    entries.checkRange(0, 8L * keys.rowCount());
    scatterBuckets.launchGridStride(keys.rowCount(), CudaStream.of(stream), new KernelArgs()
        .struct(keys.abi()).i64(keys.rowCount()).pointer(cursor).i64(mask).pointer(entries));
  }

  @Override
  public void bucketStats(DeviceBuffer offsets, long buckets, DeviceBuffer stats, DeviceStream stream) {
    offsets.checkRange(0, 4 * (buckets + 1));
    stats.checkRange(0, 16);
    bucketStats.launchGridStride(buckets, CudaStream.of(stream), new KernelArgs().pointer(offsets).i64(buckets)
        .pointer(stats));
  }

  @Override
  public void candidateCounts(HashTable table, ProbeBatch batch, long from, long to, int group, DeviceBuffer counts,
      DeviceStream stream) {
    counts.checkRange(0, 8 * ((to - from + group - 1) / group));
    candidateCounts.launchGridStride(to - from, CudaStream.of(stream), new KernelArgs()
        .pointer(table.bucketOffsets()).i64(table.bucketCount() - 1).struct(batch.keys().abi())
        .address(address(batch.selection())).i64(from).i64(to).i32(group).pointer(counts));
  }

  @Override
  public void probe(ProbeLaunch p, DeviceStream stream) {
    HashTable table = p.table();
    boolean unique = table.kind() == TableKind.UNIQUE;
    CudaKernel kernel = switch (p.variant()) {
      case NAIVE -> unique ? probeUniqueNaive : probeMultiNaive;
      case PUSH_DOWN -> probeMultiPushDown;
      case REFILL -> unique ? probeUniqueRefill : probeMultiRefill;
    };
    long rows = (p.offsetEnd() > 0 ? p.rowEnd() + 1L : p.rowEnd()) - p.rowBegin();
    p.counters().checkRange(0, 24);
    if (p.variant() != ProbeVariant.PUSH_DOWN) {
      kernel.launchGridStride(rows, CudaStream.of(stream), probeArgs(p));
    } else if (table.maxBucketLength() <= HEAVY_RANGE) {
      kernel.launchGridStride(rows, CudaStream.of(stream), probeArgs(p).address(0).address(0));
    } else {
      // the output's room is the launch's candidate bound c: at most 2 c / HEAVY_RANGE pieces (join.cu HeavyList)
      long pieces = 2 * (p.probeRows().size() / 4) / HEAVY_RANGE + 2;
      try (DeviceBuffer list = backend.allocate(HEAVY_PIECE_BYTES * pieces, stream);
          DeviceBuffer count = backend.allocate(8, stream)) {
        backend.fill(count, 0, 8, (byte) 0, stream);
        kernel.launchGridStride(rows, CudaStream.of(stream), probeArgs(p).pointer(list).pointer(count));
        // a warp per piece
        probeHeavy.launchGridStride(32 * pieces, CudaStream.of(stream), probeArgs(p).pointer(list).pointer(count));
      }
    }
  }

  /** The arguments every probe kernel starts with (join.cu SW_PROBE_PARAMS). */
  private static KernelArgs probeArgs(ProbeLaunch p) {
    HashTable table = p.table();
    boolean unique = table.kind() == TableKind.UNIQUE;
    return new KernelArgs()
        .struct(table.buildKeys().abi()).struct(p.batch().keys().abi())
        .pointer(table.taggedRows()).address(unique ? 0 : table.bucketOffsets().address())
        .i64(table.bucketCount() - 1).address(address(p.batch().selection()))
        .i64(p.rowBegin()).i64(p.offsetBegin()).i64(p.rowEnd()).i64(p.offsetEnd())
        .address(address(p.batch().matches())).address(address(p.buildMatches()))
        .pointer(p.probeRows()).pointer(p.buildRows()).pointer(p.counters()).i32(ProbeVariant.REFILL_THRESHOLD);
  }

  @Override
  public void markRows(DeviceBuffer bitmap, DeviceBuffer rowIds, int count, DeviceStream stream) {
    markRows.launchGridStride(count, CudaStream.of(stream), new KernelArgs().pointer(rowIds).i64(count)
        .pointer(bitmap));
  }

  @Override
  public DeviceBatch gather(DeviceBatch batch, DeviceBuffer rows, int count, DeviceStream stream) {
    return gather.gather(batch, rows, count, stream);
  }

  /** A nullable buffer's address: 0 (a null pointer) for none. */
  private static long address(DeviceBuffer buffer) {
    return buffer == null ? 0 : buffer.address();
  }
}
