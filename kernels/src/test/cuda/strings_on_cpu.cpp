// Runs the kernels of strings.cu on the CPU (warp_emulation.h) over a case that
// io.sparkwarp.kernels.cuda.StringKernelsOnCpuTest wrote: a string column, the host backend's pivoted layouts, and
// matcher programs (MatcherProgram's bytes) with the answers matcher.matches gives. Builds both layouts with the
// pivot kernels (the piece-count scan done here) and compares them byte for byte, then runs every match kernel
// that applies to each matcher and compares the bits, and the contains scan where a matcher has one. Device buffers are emulated as DeviceMemory makes them:
// 256-byte aligned, padded to whole 8-byte words with garbage, nothing past that (AddressSanitizer catches reads
// beyond). Prints each difference; exits 1 if there was any.
//
// usage: strings_on_cpu CASE_DIR
#include "warp_emulation.h"

#include "strings.cu"
#include "emulated_buffers.h"


// The dynamic shared memory of the match kernels. Blocks run at once here and share it, which is harmless because
// every block copies the same program into it.
uint4 sw_strings_program[(256 << 10) / sizeof(uint4)];

namespace {

bool same(const Buffer& a, const Buffer& b) { return a.bytes == b.bytes && memcmp(a.data, b.data, a.bytes) == 0; }

struct Column {
  std::unique_ptr<Buffer> validity, offsets, data;
  int64_t rows;
};

// Layout 0: PIVOTED, 1: SELF_PIVOTED. Builds it with the kernels and checks it against the host's.
struct Layout {
  std::unique_ptr<Buffer> starts, data;
};

Layout pivot(const Column& c, int layout, const std::string& dir) {
  const bool grouped = layout == 0;
  const int64_t units = grouped ? (c.rows + 31) / 32 : c.rows;
  const int32_t* offsets = c.offsets->as<int32_t>();
  Buffer pieces(4 * (units + 1));
  int32_t* counts = pieces.as<int32_t>();
  if (units > 0) {
    launch(2, 64, [&] {
      if (grouped) sw_strings_group_pieces(offsets, c.rows, counts);
      else sw_strings_segment_pieces(offsets, c.rows, counts);
    });
  }
  int32_t total = 0;
  for (int64_t i = 0; i < units; i++) {
    const int32_t n = counts[i];
    counts[i] = total;
    total += n;
  }
  counts[units] = total;
  Layout out{std::make_unique<Buffer>(8 * (units + 1)), std::make_unique<Buffer>(256 * static_cast<size_t>(total))};
  int64_t* starts = out.starts->as<int64_t>();
  launch(1, 64, [&] { sw_strings_piece_starts(counts, units, starts); });
  if (total > 0) {
    launch(2, 64, [&] {
      if (grouped) sw_strings_pivot(offsets, c.data->data, c.rows, starts, out.data->data);
      else sw_strings_self_pivot(offsets, c.data->data, c.rows, starts, out.data->data);
    });
  }
  const std::string name = grouped ? "pivoted" : "self_pivoted";
  if (!same(*out.starts, *read(dir + "/" + name + "_starts.bin"))) fail(name + " starts differ from the host's");
  if (!same(*out.data, *read(dir + "/" + name + "_data.bin"))) fail(name + " data differ from the host's");
  return out;
}

using MatchKernel = void (*)(const uint32_t*, const int32_t*, const uint8_t*, const int64_t*, const uint8_t*, int64_t,
                             const uint8_t*, int32_t, int32_t, uint32_t*, unsigned long long*);

// [layout: plain, pivoted, self-pivoted][matcher: segments, dfa][refill]
const MatchKernel MATCH_KERNELS[3][2][2] = {
    {{sw_strings_match_plain_segments, sw_strings_match_plain_segments_refill},
     {sw_strings_match_plain_dfa, sw_strings_match_plain_dfa_refill}},
    {{sw_strings_match_pivoted_segments, sw_strings_match_pivoted_segments_refill},
     {sw_strings_match_pivoted_dfa, sw_strings_match_pivoted_dfa_refill}},
    {{sw_strings_match_self_pivoted_segments, sw_strings_match_self_pivoted_segments_refill}, {nullptr, nullptr}}};

void match(const Column& c, const Layout (&layouts)[2], int index, int dfa, const std::string& description,
           const std::string& dir) {
  const auto program = read(dir + "/program_" + std::to_string(index) + ".bin");
  const auto expected = read(dir + "/expected_" + std::to_string(index) + ".bin");
  for (int layout = 0; layout < 3; layout++) {
    if (layout == 2 && dfa) continue;
    for (int refill = 0; refill < 2; refill++) {
      Buffer bits(4 * ((c.rows + 31) / 32));
      Buffer counters(24);
      memset(bits.data, 0, bits.bytes);
      memset(counters.data, 0, counters.bytes);
      const int64_t* starts = layout == 0 ? nullptr : layouts[layout - 1].starts->as<int64_t>();
      const uint8_t* pivoted = layout == 0 ? nullptr : layouts[layout - 1].data->data;
      const int chunk = layout == 2 ? 2 : 32;
      const MatchKernel kernel = MATCH_KERNELS[layout][dfa][refill];
      if (c.rows > 0) {
        launch(2, 64, [&] {
          kernel(c.validity->as<uint32_t>(), c.offsets->as<int32_t>(), c.data->data, starts, pivoted, c.rows,
                 program->data, static_cast<int32_t>(program->bytes), chunk, bits.as<uint32_t>(),
                 counters.as<unsigned long long>());
        });
      }
      const std::string what = description + " layout " + std::to_string(layout) + " refill " + std::to_string(refill);
      for (int64_t r = 0; r < c.rows; r++) {
        const bool want = (expected->data[r / 8] >> (r % 8)) & 1;
        if (want != static_cast<bool>((bits.data[r / 8] >> (r % 8)) & 1)) {
          fail(what + ": row " + std::to_string(r) + " should be " + (want ? "true" : "false"));
          break;
        }
      }
      const unsigned long long* n = counters.as<unsigned long long>();
      if (n[0] > 32 * n[1]) fail(what + ": more active lanes than the iterations had");
      if (refill && c.rows > 0 && n[2] < static_cast<unsigned long long>(c.rows)) fail(what + ": rows left queued");
    }
  }
}

// The contains scan of the matcher's longest segment, one block (blocks here share the dynamic shared memory, which
// holds the scan's per-warp scratch), at two tile sizes: every row must say whether it holds the literal.
void scan(const Column& c, int index, const std::string& description, const std::string& dir) {
  const auto file = read(dir + "/scan_" + std::to_string(index) + ".bin");
  const auto expected = read(dir + "/scan_expected_" + std::to_string(index) + ".bin");
  ScanFilter filter;
  memcpy(&filter, file->data, sizeof filter);
  const uint8_t* literal = file->data + sizeof filter;
  for (int32_t tile_rows : {32, 96}) {
    Buffer bits(4 * ((c.rows + 31) / 32));
    Buffer counters(16);
    memset(counters.data, 0, counters.bytes);
    if (c.rows > 0) {
      launch(1, 64, [&] {
        sw_strings_contains_scan(c.validity->as<uint32_t>(), c.offsets->as<int32_t>(), c.data->data, c.rows, literal,
                                 filter, tile_rows, bits.as<uint32_t>(), counters.as<unsigned long long>());
      });
    }
    const std::string what = description + " contains scan, tiles of " + std::to_string(tile_rows);
    for (int64_t r = 0; r < c.rows; r++) {
      const bool want = (expected->data[r / 8] >> (r % 8)) & 1;
      const bool valid = (c.validity->data[r / 8] >> (r % 8)) & 1;
      if ((want && valid) != static_cast<bool>((bits.data[r / 8] >> (r % 8)) & 1)) {
        fail(what + ": row " + std::to_string(r) + " should be " + (want && valid ? "true" : "false"));
        break;
      }
    }
    const unsigned long long* n = counters.as<unsigned long long>();
    if (n[0] > 32 * n[1]) fail(what + ": more words scanned than the steps had slots");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: strings_on_cpu CASE_DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  Column c{read(dir + "/validity.bin"), read(dir + "/offsets.bin"), read(dir + "/data.bin"), 0};
  c.rows = static_cast<int64_t>(c.offsets->bytes / 4) - 1;
  const Layout layouts[2] = {pivot(c, 0, dir), pivot(c, 1, dir)};
  std::ifstream manifest(dir + "/manifest.txt");
  int index, dfa, scans, matchers = 0;
  std::string description;
  while (manifest >> index >> dfa >> scans && std::getline(manifest, description)) {
    match(c, layouts, index, dfa, description, dir);
    if (scans) scan(c, index, description, dir);
    matchers++;
  }
  printf("%s: %ld rows, %d matchers, %d failures\n", dir.c_str(), static_cast<long>(c.rows), matchers, failures);
  return failures == 0 ? 0 : 1;
}
