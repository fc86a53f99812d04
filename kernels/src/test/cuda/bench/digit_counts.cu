// The sort's histogram kernels alone (issue 14): sw_sort_digit_counts_keys (packing an int64 column into words, as
// DeviceSort's first step does, and writing them out) and sw_sort_digit_counts (over the words) for 8 passes of 8
// bits, against a plain copy of the same bytes; then the counts are checked against the host's. Two key shapes:
// random 64-bit values, and values below 2^26 (five passes whose digit is the same in every row: 32 lanes adding to
// one shared word). CUDA events around each launch, one warm-up, the median of 5.
// Build with this machine's nvcc, cudart linked statically so the GPU machine needs no toolkit:
//   nvcc -O3 -std=c++17 -arch=sm_90 -cudart static -I kernels/src/main/cuda/include -I kernels/src/main/cuda \
//     -o digit_counts kernels/src/test/cuda/bench/digit_counts.cu
// Run there: ./digit_counts [N=100000000]
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "sort.cu"

#include "harness.h"

namespace {

__global__ void generate(int64_t n, uint64_t below, int64_t* values) {
  for_each_index(n, [&](int64_t i) {
    const uint64_t h = mix(static_cast<uint64_t>(i));
    values[i] = static_cast<int64_t>(below == 0 ? h : h % below);
  });
}

__global__ void copy_words(int64_t n, const int64_t* in, uint64_t* out) {
  for_each_index(n, [&](int64_t i) { out[i] = static_cast<uint64_t>(in[i]); });
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? atoll(argv[1]) : 100000000;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int64_t* values;
  uint64_t* words;
  int32_t* counts;
  CHECK(cudaMalloc(&values, 8 * n));
  CHECK(cudaMalloc(&words, 8 * n));
  CHECK(cudaMalloc(&counts, 4 * 256 * onesweep::MAX_PASSES));

  sort_keys::PackedKeys keys{};
  keys.count = 1;
  // no nulls, so no validity, as DeviceSort packs such a key
  keys.fields[0] = {reinterpret_cast<const uint8_t*>(values), nullptr, expr::KIND_LONG, 0, 64, 0, 0, 0, 0, 0};
  onesweep::DigitPlan plan{};
  plan.passes = 8;
  for (int p = 0; p < 8; p++) {
    plan.shift[p] = 8 * p;
    plan.bits[p] = 8;
  }
  const int shared = sizeof(onesweep::CountsShared);
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sw_sort_digit_counts_keys, block_grouping::THREADS,
                                                      shared));
  const int64_t tiles = (n + block_grouping::CHUNK - 1) / block_grouping::CHUNK;
  const int blocks =
      static_cast<int>(std::min<int64_t>(static_cast<int64_t>(per_sm) * prop.multiProcessorCount, tiles));
  const uint64_t shapes[] = {0, 1ull << 26};
  int wrong = 0;
  for (uint64_t below : shapes) {
    generate<<<prop.multiProcessorCount * 8, 256>>>(n, below, values);
    CHECK(cudaGetLastError());
    const float copy_ms = median_ms([&] { copy_words<<<prop.multiProcessorCount * 8, 256>>>(n, values, words); });
    const float keys_ms = median_ms([&] {
      CHECK(cudaMemsetAsync(counts, 0, 4 * 256 * 8));
      sw_sort_digit_counts_keys<<<blocks, block_grouping::THREADS, shared>>>(keys, n, plan, counts, words);
    });
    const float words_ms = median_ms([&] {
      CHECK(cudaMemsetAsync(counts, 0, 4 * 256 * 8));
      sw_sort_digit_counts<<<blocks, block_grouping::THREADS, shared>>>(words, n, plan, counts);
    });
    CHECK(cudaDeviceSynchronize());
    printf("%s, %lld rows, %s, %d blocks (%d an SM): copy 8 B a row %.3f ms (%.0f GB/s); histograms from the column, "
           "words written %.3f ms (%.0f GB/s); from the words %.3f ms (%.0f GB/s)\n",
           prop.name, static_cast<long long>(n), below == 0 ? "random int64" : "int64 below 2^26", blocks, per_sm,
           copy_ms, 16.0 * n / copy_ms / 1e6, keys_ms, 16.0 * n / keys_ms / 1e6, words_ms, 8.0 * n / words_ms / 1e6);

    std::vector<int64_t> want(256 * 8, 0);
    for (int64_t i = 0; i < n; i++) {
      const uint64_t h = mix(static_cast<uint64_t>(i));
      const uint64_t v = (below == 0 ? h : h % below) ^ sort_keys::SIGN64;  // the word a LONG key packs to
      for (int p = 0; p < 8; p++) want[p * 256 + ((v >> (8 * p)) & 255)]++;
    }
    std::vector<int32_t> got(256 * 8);
    for (const char* kernel : {"keys", "words"}) {
      CHECK(cudaMemset(counts, 0, 4 * 256 * 8));
      if (kernel[0] == 'k') {
        sw_sort_digit_counts_keys<<<blocks, block_grouping::THREADS, shared>>>(keys, n, plan, counts, words);
      } else {
        sw_sort_digit_counts<<<blocks, block_grouping::THREADS, shared>>>(words, n, plan, counts);
      }
      CHECK(cudaMemcpy(got.data(), counts, 4 * 256 * 8, cudaMemcpyDeviceToHost));
      for (int c = 0; c < 256 * 8; c++) {
        if (got[c] != want[c] && wrong++ < 5) {
          printf("%s: pass %d digit %d: %d, want %lld\n", kernel, c / 256, c % 256, got[c],
                 static_cast<long long>(want[c]));
        }
      }
    }
  }
  printf(wrong == 0 ? "counts match the host's\n" : "%d counts differ\n", wrong);
  return wrong == 0 ? 0 : 1;
}
