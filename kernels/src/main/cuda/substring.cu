// Spark's substring(str, pos, len) of a string column, pos and len constants (utf8.cuh): a substring is a run of its
// string's bytes, so a thread per row finds that run (ranges), the host scans the lengths into the new offsets
// (scan.cu) and reads back the total, and a warp per row copies the bytes (copy). Validity is the input's, copied by
// the host. Host twin: io.sparkwarp.kernels.host.HostStringPrimitives.substring; orchestration:
// io.sparkwarp.kernels.cuda.CudaSubstring.
#include "sparkwarp/grid.cuh"
#include "sparkwarp/utf8.cuh"
#include "sparkwarp/warp.cuh"

using namespace sparkwarp;

// begins[r] = where row r's substring starts in data, lengths[r] = its bytes (0 for a null row).
extern "C" __global__ void sw_substring_ranges(const uint32_t* validity, const int32_t* offsets, const uint8_t* data,
                                               int64_t rows, int32_t pos, int32_t len, int32_t* begins,
                                               int32_t* lengths) {
  for_each_index(rows, [&](int64_t r) {
    const int32_t at = offsets[r];
    const bool valid = (validity[r >> 5] >> (r & 31)) & 1u;
    const ByteRange range = valid ? utf8_substring(data + at, offsets[r + 1] - at, pos, len) : ByteRange{0, 0};
    begins[r] = at + range.begin;
    lengths[r] = range.end - range.begin;
  });
}

// Row r's substring, begins[r] in src, to dst at offsets[r]: one warp per row, lanes striding over its bytes.
extern "C" __global__ void sw_substring_copy(const uint8_t* src, const int32_t* begins, const int32_t* offsets,
                                             int64_t rows, uint8_t* dst) {
  for_each_warp_tile(rows, [&](int64_t r) {
    const int32_t begin = begins[r];
    const int32_t length = offsets[r + 1] - offsets[r];
    uint8_t* out = dst + offsets[r];
    for (int32_t k = lane_id(); k < length; k += 32) out[k] = src[begin + k];
  });
}
