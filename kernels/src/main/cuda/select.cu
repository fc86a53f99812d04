// Filter compaction: the rows a boolean column selects (true and valid) become a list of row ids, through per-word
// counts and a prefix sum (scan.cu), and every column is gathered through that list. The gathers also build join
// payloads, where a row id of -1 stands for a null row (outer joins): validity 0, value 0, empty bytes. Host twin:
// io.sparkwarp.kernels.host.HostRowGather; orchestration: io.sparkwarp.kernels.cuda.CudaRowGather.
#include "sparkwarp/grid.cuh"
#include "sparkwarp/warp.cuh"

using namespace sparkwarp;

// counts[w] = the number of selected rows among rows [32w, 32w + 32).
extern "C" __global__ void sw_select_counts(const uint32_t* validity, const uint32_t* values, int64_t words,
                                            int32_t* counts) {
  for_each_index(words, [&](int64_t w) { counts[w] = __popc(validity[w] & values[w]); });
}

// rows[word_offsets[w] + rank] = i for every selected row i, rank being its place among the selected rows of its word.
extern "C" __global__ void sw_select_rows(const uint32_t* validity, const uint32_t* values, int64_t n,
                                          const int32_t* word_offsets, int32_t* rows) {
  for_each_index(n, [&](int64_t i) {
    const int64_t w = i >> 5;
    const uint32_t selected = validity[w] & values[w];
    const int b = static_cast<int>(i & 31);
    if ((selected >> b) & 1u) rows[word_offsets[w] + __popc(selected & ((1u << b) - 1u))] = static_cast<int32_t>(i);
  });
}

// dst[j] = src[rows[j]] for values of `width` bytes (1, 2, 4, 8 or 16); 0 for a null row.
extern "C" __global__ void sw_gather_fixed(const uint8_t* src, int32_t width, const int32_t* rows, int64_t count,
                                           uint8_t* dst) {
  for_each_index(count, [&](int64_t j) {
    const int64_t r = rows[j];
    if (r < 0) {
      for (int k = 0; k < width; k++) dst[j * width + k] = 0;
      return;
    }
    switch (width) {
      case 1: dst[j] = src[r]; break;
      case 2: reinterpret_cast<uint16_t*>(dst)[j] = reinterpret_cast<const uint16_t*>(src)[r]; break;
      case 4: reinterpret_cast<uint32_t*>(dst)[j] = reinterpret_cast<const uint32_t*>(src)[r]; break;
      case 16: reinterpret_cast<ulonglong2*>(dst)[j] = reinterpret_cast<const ulonglong2*>(src)[r]; break;
      default: reinterpret_cast<uint64_t*>(dst)[j] = reinterpret_cast<const uint64_t*>(src)[r]; break;
    }
  });
}

// Bit j of dst = bit rows[j] of src, a whole 32-bit word per warp (bits past count, and of null rows, are zero).
extern "C" __global__ void sw_gather_bits(const uint32_t* src, const int32_t* rows, int64_t count, uint32_t* dst) {
  for_each_warp_tile((count + 31) >> 5, [&](int64_t w) {
    const int64_t j = (w << 5) + lane_id();
    bool b = false;
    if (j < count) {
      const int64_t r = rows[j];
      b = r >= 0 && ((src[r >> 5] >> (r & 31)) & 1u);
    }
    const uint32_t word = __ballot_sync(FULL_WARP, b);
    if (lane_id() == 0) dst[w] = word;
  });
}

// lengths[j] = the byte length of row rows[j] (0 for a null row): the values new string offsets are scanned from.
extern "C" __global__ void sw_gather_lengths(const int32_t* offsets, const int32_t* rows, int64_t count,
                                             int32_t* lengths) {
  for_each_index(count, [&](int64_t j) {
    const int64_t r = rows[j];
    lengths[j] = r < 0 ? 0 : offsets[r + 1] - offsets[r];
  });
}

// The bytes of row rows[j] to dst at dst_offsets[j]: one warp per row, lanes striding over its bytes.
extern "C" __global__ void sw_gather_bytes(const uint8_t* src, const int32_t* src_offsets, const int32_t* rows,
                                           int64_t count, const int32_t* dst_offsets, uint8_t* dst) {
  for_each_warp_tile(count, [&](int64_t j) {
    const int64_t r = rows[j];
    if (r < 0) return;
    const int32_t start = src_offsets[r];
    const int32_t length = src_offsets[r + 1] - start;
    uint8_t* out = dst + dst_offsets[j];
    for (int32_t k = lane_id(); k < length; k += 32) out[k] = src[start + k];
  });
}
