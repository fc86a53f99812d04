// Spark's hash partitioning on the device, for the GPU shuffle's map side: every row's partition id,
// pmod(murmur3(keys, 42), n) as Spark computes it, then a stable counting sort of the rows by that id, so each
// partition's rows are one contiguous range of the gathered batch (Rui's radix partitioning pass, one pass because
// the id is the whole digit). The sort runs one warp per tile of rows: a tile's count of each partition is a cell of
// a partition-major matrix, whose exclusive scan (scan.cu) gives every (partition, tile) its first output position,
// so the order within a partition is the input order without any atomics. Host twin:
// io.sparkwarp.kernels.host.HostPartitionPrimitives; orchestration: io.sparkwarp.kernels.cuda.CudaPartitionPrimitives.
#include "sparkwarp/expr_program.cuh"
#include "sparkwarp/grid.cuh"
#include "sparkwarp/spark_murmur3.cuh"
#include "sparkwarp/warp.cuh"

using namespace sparkwarp;

namespace {

// Spark's Murmur3Hash of one value of a column of DeviceType.Kind `kind`, seeded with the running hash.
__device__ uint32_t spark_hash_value(int32_t kind, const uint8_t* data, const int32_t* offsets, int64_t i,
                                     uint32_t seed) {
  using namespace spark_murmur3;
  switch (kind) {
    case expr::KIND_BOOLEAN: return hash_int((reinterpret_cast<const uint32_t*>(data)[i >> 5] >> (i & 31)) & 1u, seed);
    case expr::KIND_BYTE: return hash_int(static_cast<int32_t>(reinterpret_cast<const int8_t*>(data)[i]), seed);
    case expr::KIND_SHORT: return hash_int(static_cast<int32_t>(reinterpret_cast<const int16_t*>(data)[i]), seed);
    case expr::KIND_INT:
    case expr::KIND_DATE: return hash_int(reinterpret_cast<const uint32_t*>(data)[i], seed);
    case expr::KIND_FLOAT: {
      // -0.0 hashes as 0.0 and every NaN as Java's canonical one
      const float f = reinterpret_cast<const float*>(data)[i];
      return hash_int(f == 0.0f ? 0u : (f != f ? 0x7fc00000u : __float_as_uint(f)), seed);
    }
    case expr::KIND_DOUBLE: {
      const double d = reinterpret_cast<const double*>(data)[i];
      const uint64_t bits = d == 0.0 ? 0ull : (d != d ? 0x7ff8000000000000ull : __double_as_longlong(d));
      return hash_long(bits, seed);
    }
    case expr::KIND_STRING:
    case expr::KIND_BINARY: return hash_bytes(data + offsets[i], offsets[i + 1] - offsets[i], seed);
    case expr::KIND_DECIMAL128: {
      const uint64_t* words = reinterpret_cast<const uint64_t*>(data);
      return hash_wide_decimal(words[2 * i], words[2 * i + 1], seed);
    }
    default:  // LONG, TIMESTAMP, DECIMAL (64-bit unscaled)
      return hash_long(reinterpret_cast<const uint64_t*>(data)[i], seed);
  }
}

// Calls f(i, lane_rank, group_mask) for the rows [t * tile_rows, ...) of tile t, 32 at a time in order, with every
// lane of the warp converged; dead lanes get i = -1. group_mask: the lanes holding the same partition id.
template <typename F>
__device__ __forceinline__ void for_each_tile_step(const int32_t* ids, int64_t n, int32_t tile_rows, int64_t t, F f) {
  const int64_t begin = t * tile_rows;
  const int64_t end = begin + tile_rows < n ? begin + tile_rows : n;
  for (int64_t base = begin; base < end; base += 32) {
    const int64_t i = base + lane_id();
    const bool live = i < end;
    const int32_t p = live ? ids[i] : -1;
    const uint32_t group = __match_any_sync(FULL_WARP, p);
    f(live ? i : -1, p, group);
    __syncwarp();  // the next step reads what this one wrote
  }
}

}  // namespace

// h[i] = Spark's Murmur3Hash of column value i folded into h[i] (42 for the first key column); a null leaves it.
extern "C" __global__ void sw_partition_hash(int32_t kind, const uint8_t* data, const uint32_t* validity,
                                             const int32_t* offsets, int64_t n, int32_t first, uint32_t* h) {
  for_each_index(n, [&](int64_t i) {
    const uint32_t seed = first ? spark_murmur3::SEED : h[i];
    const bool valid = (validity[i >> 5] >> (i & 31)) & 1u;
    h[i] = valid ? spark_hash_value(kind, data, offsets, i, seed) : seed;
  });
}

// ids[i] = pmod(ids[i], partitions), reading the hash as Java's int.
extern "C" __global__ void sw_partition_pmod(int32_t* ids, int64_t n, int32_t partitions) {
  for_each_index(n, [&](int64_t i) {
    const int32_t r = ids[i] % partitions;
    ids[i] = r < 0 ? r + partitions : r;
  });
}

// counts[p * tiles + t] = the rows of tile t with id p (counts zeroed before): one warp per tile, no atomics.
extern "C" __global__ void sw_partition_count(const int32_t* ids, int64_t n, int32_t tile_rows, int64_t tiles,
                                              int32_t* counts) {
  for_each_warp_tile(tiles, [&](int64_t t) {
    for_each_tile_step(ids, n, tile_rows, t, [&](int64_t i, int32_t p, uint32_t group) {
      if (i >= 0 && (group & lanemask_lt()) == 0) counts[p * tiles + t] += __popc(group);
    });
  });
}

// starts[p] = the first output position of partition p: its tile-0 cell of the scanned matrix.
extern "C" __global__ void sw_partition_starts(const int32_t* positions, int64_t tiles, int32_t partitions,
                                               int32_t* starts) {
  for_each_index(partitions, [&](int64_t p) { starts[p] = positions[p * tiles]; });
}

// order[positions[p * tiles + t]++] = i for the rows i of tile t in input order: rows grouped by id, stably.
extern "C" __global__ void sw_partition_scatter(const int32_t* ids, int64_t n, int32_t tile_rows, int64_t tiles,
                                                int32_t* positions, int32_t* order) {
  for_each_warp_tile(tiles, [&](int64_t t) {
    for_each_tile_step(ids, n, tile_rows, t, [&](int64_t i, int32_t p, uint32_t group) {
      const int32_t at = i >= 0 ? positions[p * tiles + t] : 0;
      __syncwarp();  // every lane of the group has read the cell before its first lane moves it on
      if (i < 0) return;
      const uint32_t before = group & lanemask_lt();
      order[at + __popc(before)] = static_cast<int32_t>(i);
      if (before == 0) positions[p * tiles + t] = at + __popc(group);
    });
  });
}
