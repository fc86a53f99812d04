// Runs the kernels of substring.cu on the CPU (warp_emulation.h) over a case that
// io.sparkwarp.kernels.cuda.SubstringKernelsOnCpuTest wrote: a string column, and for each (pos, len) of its manifest
// the host backend's substring column. Finds the ranges, scans their lengths into offsets here (as CudaSubstring has
// scan.cu do), copies the bytes, and compares offsets and bytes with the host's. Buffers are emulated as DeviceMemory
// makes them (emulated_buffers.h), so AddressSanitizer catches reads past a string column's bytes. Prints each
// difference; exits 1 if there was any.
//
// usage: substring_on_cpu CASE_DIR
#include "warp_emulation.h"

#include "substring.cu"
#include "emulated_buffers.h"

#include <fstream>

namespace {

void check(const Buffer& validity, const Buffer& offsets, const Buffer& data, int64_t rows, int32_t pos, int32_t len,
           const std::string& dir, int index) {
  Buffer begins(4 * rows), out_offsets(4 * (rows + 1));
  int32_t* lengths = out_offsets.as<int32_t>();
  if (rows > 0) {
    launch(2, 64, [&] {
      sw_substring_ranges(validity.as<uint32_t>(), offsets.as<int32_t>(), data.data, rows, pos, len,
                          begins.as<int32_t>(), lengths);
    });
  }
  int32_t total = 0;
  for (int64_t r = 0; r < rows; r++) {
    const int32_t n = lengths[r];
    lengths[r] = total;
    total += n;
  }
  lengths[rows] = total;
  Buffer out(total);
  if (total > 0) {
    launch(2, 64, [&] {
      sw_substring_copy(data.data, begins.as<int32_t>(), out_offsets.as<int32_t>(), rows, out.data);
    });
  }
  const std::string what = "substring(s, " + std::to_string(pos) + ", " + std::to_string(len) + ")";
  const auto expected_offsets = read(dir + "/offsets_" + std::to_string(index) + ".bin");
  const auto expected_data = read(dir + "/data_" + std::to_string(index) + ".bin");
  if (memcmp(expected_offsets->data, out_offsets.data, expected_offsets->bytes) != 0) fail(what + ": offsets");
  if (expected_data->bytes != out.bytes || memcmp(expected_data->data, out.data, out.bytes) != 0) {
    fail(what + ": bytes");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: substring_on_cpu CASE_DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  const auto validity = read(dir + "/validity.bin");
  const auto offsets = read(dir + "/offsets.bin");
  const auto data = read(dir + "/data.bin");
  const int64_t rows = static_cast<int64_t>(offsets->bytes / 4) - 1;
  std::ifstream manifest(dir + "/manifest.txt");
  int index, cases = 0;
  int32_t pos, len;
  while (manifest >> index >> pos >> len) {
    check(*validity, *offsets, *data, rows, pos, len, dir, index);
    cases++;
  }
  printf("%s: %ld rows, %d cases, %d failures\n", dir.c_str(), static_cast<long>(rows), cases, failures);
  return failures == 0 ? 0 : 1;
}
