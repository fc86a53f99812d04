// A top-N's selection before its sort (io.sparkwarp.kernels.sort.TopSelect): each row's prefix, a 64-bit word
// whose unsigned order never contradicts Spark's order of the first sort key (a row that sorts strictly first never
// has a larger prefix; rows with equal prefixes may sort either way), histograms of one byte of the prefixes (a
// radix select: the host finds the byte of the limit-th row and pins it), and a bit mask of the rows whose prefix is
// at or below the cutoff, which select.cu's kernels compact into the candidates' row ids. Host twin:
// io.sparkwarp.kernels.host.HostTopSelectPrimitives; orchestration: io.sparkwarp.kernels.cuda.CudaTopSelectPrimitives.
#include "sparkwarp/grid.cuh"
#include "sparkwarp/sort_keys.cuh"
#include "sparkwarp/warp.cuh"

using namespace sparkwarp;

namespace {

// The bits of a fixed-width kind's sortable key (sort_keys.cuh keeps them in the low bits of its word).
__device__ __forceinline__ int32_t sortable_bits(int32_t kind) {
  switch (kind) {
    case expr::KIND_BOOLEAN: return 1;
    case expr::KIND_BYTE: return 8;
    case expr::KIND_SHORT: return 16;
    case expr::KIND_INT:
    case expr::KIND_DATE:
    case expr::KIND_FLOAT: return 32;
    default: return 64;  // LONG, TIMESTAMP, DECIMAL; DECIMAL128 gives its high word
  }
}

// The first 8 bytes of string i, big-endian, 0 past its end: unsigned byte order, a proper prefix first or equal.
__device__ __forceinline__ uint64_t leading_bytes(const uint8_t* data, const int32_t* offsets, int64_t i) {
  const int32_t start = offsets[i];
  const int32_t length = offsets[i + 1] - start;
  uint64_t word = 0;
  for (int32_t b = 0; b < 8; b++) word = (word << 8) | (b < length ? data[start + b] : 0u);
  return word;
}

// Row i's prefix: the top bit places the nulls (0 for the rows that sort first by nullness), the 63 below it are
// the most significant bits of the value's sortable key, left-aligned, complemented when descending; 0 for a null.
__device__ __forceinline__ uint64_t top_prefix(int32_t kind, const uint8_t* data, const uint32_t* validity,
                                               const int32_t* offsets, int64_t i, bool descending, bool nulls_first) {
  const bool valid = (validity[i >> 5] >> (i & 31)) & 1u;
  const uint64_t null_bit = static_cast<uint64_t>(valid == nulls_first) << 63;
  if (!valid) return null_bit;
  uint64_t key;
  if (sort_keys::is_bytes(kind)) {
    key = leading_bytes(data, offsets, i);
  } else if (kind == expr::KIND_DECIMAL128) {
    key = sort_keys::sortable_key(kind, data, i).hi;
  } else {
    key = sort_keys::sortable_key(kind, data, i).lo << (64 - sortable_bits(kind));
  }
  return null_bit | ((descending ? ~key : key) >> 1);
}

}  // namespace

// prefixes[i] = the prefix of row i of the first sort key's column (offsets only for strings and binaries).
extern "C" __global__ void sw_top_prefixes(int32_t kind, const uint8_t* data, const uint32_t* validity,
                                           const int32_t* offsets, int64_t n, int32_t descending, int32_t nulls_first,
                                           uint64_t* prefixes) {
  for_each_index(n, [&](int64_t i) {
    prefixes[i] = top_prefix(kind, data, validity, offsets, i, descending != 0, nulls_first != 0);
  });
}

// The selection's one dynamic shared array: a block's 256 byte counts.
extern __shared__ int32_t sw_top_shared[];

// counts[b] += the rows whose prefix has byte b at bit `shift` among those that agree with `pinned` above it (all
// rows at shift 56). Counted in shared memory, added to the 256 global counts (zeroed by the caller) once per block.
extern "C" __global__ void sw_top_histogram(const uint64_t* prefixes, int64_t n, int32_t shift, uint64_t pinned,
                                            int32_t* counts) {
  for (int32_t b = threadIdx.x; b < 256; b += blockDim.x) sw_top_shared[b] = 0;
  __syncthreads();
  const int32_t above = shift + 8;
  for_each_index(n, [&](int64_t i) {
    const uint64_t p = prefixes[i];
    if (above == 64 || (p >> above) == (pinned >> above)) atomicAdd(&sw_top_shared[(p >> shift) & 0xffu], 1);
  });
  __syncthreads();
  for (int32_t b = threadIdx.x; b < 256; b += blockDim.x) {
    if (sw_top_shared[b] != 0) atomicAdd(&counts[b], sw_top_shared[b]);
  }
}

// Bit j of mask[w] = whether row 32w + j (< n) has a prefix at or below `cutoff`: the candidates, as a selection
// that select.cu's sw_select_counts and sw_select_rows compact (passed as both its validity and its values). A warp
// per word, one ballot.
extern "C" __global__ void sw_top_candidate_mask(const uint64_t* prefixes, int64_t n, uint64_t cutoff,
                                                 uint32_t* mask) {
  for_each_warp_tile((n + 31) / 32, [&](int64_t w) {
    const int64_t i = 32 * w + lane_id();
    const uint32_t bits = __ballot_sync(0xffffffffu, i < n && prefixes[i] <= cutoff);
    if (lane_id() == 0) mask[w] = bits;
  });
}
