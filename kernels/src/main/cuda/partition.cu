// Spark's hash, range and round-robin partitioning on the device, for the GPU shuffle's map side: every row's
// partition id as Spark computes it (for hashing pmod(murmur3(keys, 42), n), or with another seed); grouping.cu then sorts the rows by that
// id, stably, so each partition's rows are one contiguous range of the gathered batch (one radix pass: the id is the
// whole digit).
// Host twin: io.sparkwarp.kernels.host.HostPartitionPrimitives; orchestration:
// io.sparkwarp.kernels.cuda.CudaPartitionPrimitives.
#include "sparkwarp/expr_program.cuh"
#include "sparkwarp/grid.cuh"
#include "sparkwarp/spark_murmur3.cuh"

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

}  // namespace

// h[i] = Spark's Murmur3Hash of column value i folded into h[i] (`seed` for the first key column: Spark's 42, or
// another seed to split rows that share a Spark partition); a null leaves it.
extern "C" __global__ void sw_partition_hash(int32_t kind, const uint8_t* data, const uint32_t* validity,
                                             const int32_t* offsets, int64_t n, int32_t first, uint32_t first_seed,
                                             uint32_t* h) {
  for_each_index(n, [&](int64_t i) {
    const uint32_t seed = first ? first_seed : h[i];
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

// Spark's round-robin partitioning: row i of the batch takes the map task's running position first + i (a Java int,
// wrapping as Spark's does), and HashPartitioner's nonNegativeMod of it. No hash, no key: the ids only depend on i.
extern "C" __global__ void sw_partition_round_robin(int32_t* ids, int64_t n, int32_t first, int32_t partitions) {
  for_each_index(n, [&](int64_t i) {
    const int32_t position = static_cast<int32_t>(static_cast<uint32_t>(first) + static_cast<uint32_t>(i));
    const int32_t r = position % partitions;
    ids[i] = r < 0 ? r + partitions : r;
  });
}

// Spark's range partitioning, from one stable order of a batch's keys followed by the partitioner's bounds (so a
// row equal to a bound sorts before it, as RangePartitioner places it at or below that bound). First a flag per
// position of that order, 1 where it holds a bound; scanned, it counts the bounds before each position.
extern "C" __global__ void sw_partition_bound_flags(const int32_t* order, int64_t n, int32_t rows, int32_t* flags) {
  for_each_index(n, [&](int64_t j) { flags[j] = order[j] >= rows ? 1 : 0; });
}

// ids[r] = the bounds sorted before row r (< rows) = its range partition, from the scanned flags.
extern "C" __global__ void sw_partition_range_ids(const int32_t* order, const int32_t* bounds_before, int64_t n,
                                                  int32_t rows, int32_t* ids) {
  for_each_index(n, [&](int64_t j) {
    const int32_t r = order[j];
    if (r >= 0 && r < rows) ids[r] = bounds_before[j];
  });
}
