// The group-by accumulation alone (issue 14): sw_agg_accumulate_shared over N device-generated rows whose groups are
// given directly (slot_of_row = the group, group_of_slot the identity, as the group table would leave them), against
// a plain read of the same bytes; then the accumulators are checked against a reference on the host. Two shapes:
// 0, AggregateBenchmark's (long, double): count(*), sum(long), sum(double), min(double), max(long), 5 % nulls; 1,
// TPC-H Q1's (quantity, price, discount, tax as unscaled decimal(12, 2)): sum(quantity), sum(price),
// sum(price x discount), sum(price x discount x tax), sum and count of quantity, price and discount, count(*), 2 %
// nulls. CUDA events around each launch, one warm-up, the median of 5. GB/s count the bytes a row reads: its 4-byte
// slot, 8 a column and a validity bit a column.
// Build with this machine's nvcc, cudart linked statically so the GPU machine needs no toolkit:
//   nvcc -O3 -std=c++17 -arch=sm_90 -cudart static -I kernels/src/main/cuda/include -I kernels/src/main/cuda \
//     -o aggregate_accumulate kernels/src/test/cuda/bench/aggregate_accumulate.cu
// Run there: ./aggregate_accumulate [N=100000000] [shape=0] [groups=4] [check=1]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "aggregate.cu"

#include "harness.h"

namespace {

// Column c: integers in [lo, lo + span) (as doubles where as_double), null where mix % 100 < nulls.
__global__ void generate(int64_t n, int c, int64_t lo, uint64_t span, int nulls, bool as_double, uint8_t* data,
                         uint32_t* validity) {
  for_each_warp_tile((n + 31) >> 5, [&](int64_t w) {
    const int64_t r = (w << 5) + lane_id();
    const uint64_t h = mix(static_cast<uint64_t>(r) * 131 + c);
    const int64_t v = lo + static_cast<int64_t>(h % span);
    if (r < n) {
      if (as_double) reinterpret_cast<double*>(data)[r] = static_cast<double>(v);
      else reinterpret_cast<int64_t*>(data)[r] = v;
    }
    const uint32_t bits = __ballot_sync(FULL_WARP, r < n && mix(h) % 100 >= static_cast<uint64_t>(nulls));
    if (lane_id() == 0) validity[w] = bits;
  });
}

__global__ void generate_groups(int64_t n, int groups, int32_t* slot_of_row) {
  for_each_index(n, [&](int64_t r) { slot_of_row[r] = static_cast<int32_t>(mix(r * 7 + 99) % groups); });
}

// The floor: the same bytes read by a plain loop.
__global__ void read_all(int64_t n, const int32_t* slot_of_row, const int64_t* const* columns, int count,
                         uint64_t* sink) {
  uint64_t x = 0;
  for_each_index(n, [&](int64_t r) {
    x += slot_of_row[r];
    for (int c = 0; c < count; c++) x ^= columns[c][r];
  });
  if (x == 42) *sink = x;
}

struct Column {
  uint8_t* data;
  uint32_t* validity;
  bool doubles;
  std::vector<int64_t> host;
  std::vector<uint32_t> host_validity;
};

bool valid_at(const Column& c, int64_t r) { return (c.host_validity[r >> 5] >> (r & 31)) & 1u; }

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? atoll(argv[1]) : 100000000;
  const int shape = argc > 2 ? atoi(argv[2]) : 0;
  const int groups = argc > 3 ? atoi(argv[3]) : 4;
  const bool check = argc > 4 ? atoi(argv[4]) != 0 : true;
  const int count = shape == 0 ? 2 : 4;
  const int64_t lo[2][4] = {{-1000000, -1000000}, {0, 0, 0, 0}};
  const uint64_t span[2][4] = {{2000001, 2000001}, {5000, 10000000, 11, 9}};
  const int64_t words = (n + 31) / 32;
  std::vector<Column> columns(count);
  for (int c = 0; c < count; c++) {
    Column& col = columns[c];
    col.doubles = shape == 0 && c == 1;
    CHECK(cudaMalloc(&col.data, 8 * n));
    CHECK(cudaMalloc(&col.validity, 4 * words));
    generate<<<1024, 256>>>(n, c, lo[shape][c], span[shape][c], shape == 0 ? 5 : 2, col.doubles, col.data,
                            col.validity);
  }
  int32_t *slot_of_row, *group_of_slot;
  CHECK(cudaMalloc(&slot_of_row, 4 * n));
  CHECK(cudaMalloc(&group_of_slot, 4 * groups));
  generate_groups<<<1024, 256>>>(n, groups, slot_of_row);
  std::vector<int32_t> identity(groups);
  for (int g = 0; g < groups; g++) identity[g] = g;
  CHECK(cudaMemcpy(group_of_slot, identity.data(), 4 * groups, cudaMemcpyHostToDevice));

  AggSpecs specs{};
  auto add = [&](int32_t op, int input, int factor0 = -1, int factor1 = -1) {
    AggSpec& s = specs.spec[specs.count++];
    s.op = op;
    if (input >= 0) {
      s.validity = columns[input].validity;
      s.data = columns[input].data;
      s.input = columns[input].doubles ? L_DOUBLE : L_INT64;
    }
    const int factors[2] = {factor0, factor1};
    for (int f = 0; f < 2; f++) {
      if (factors[f] < 0) continue;
      s.factor_validity[f] = columns[factors[f]].validity;
      s.factor_data[f] = columns[factors[f]].data;
    }
  };
  if (shape == 0) {
    add(AGG_COUNT_ALL, -1);
    add(AGG_SUM, 0);
    add(AGG_SUM, 1);
    add(AGG_MIN, 1);
    add(AGG_MAX, 0);
  } else {
    add(AGG_SUM, 0);
    add(AGG_SUM, 1);
    add(AGG_SUM, 1, 2);
    add(AGG_SUM, 1, 2, 3);
    for (int c = 0; c < 3; c++) {
      add(AGG_SUM, c);
      add(AGG_COUNT, c);
    }
    add(AGG_COUNT_ALL, -1);
  }
  // the accumulators, and what CudaAggregatePrimitives#launchAccumulate picks for them
  int64_t per_group = 0;
  for (int k = 0; k < specs.count; k++) {
    AggSpec& s = specs.spec[k];
    CHECK(cudaMalloc(&s.acc, 8 * acc_words(s) * groups));
    CHECK(cudaMalloc(&s.flags, 4 * groups));
    per_group += 8 * acc_words(s) + 4;
  }
  int copies = 32;
  while (copies * per_group * groups > 48 * 1024) copies >>= 1;
  if (copies == 0) {
    fprintf(stderr, "%d groups do not fit shared memory: sw_agg_accumulate's global atomics\n", groups);
    return 1;
  }
  const int shared = static_cast<int>(copies * per_group * groups);
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sw_agg_accumulate_shared, 256, shared));
  const int blocks = static_cast<int>(std::min<int64_t>(static_cast<int64_t>(per_sm) * prop.multiProcessorCount,
                                                        (n + 255) / 256));
  auto accumulate = [&] {
    sw_agg_init<<<64, 256>>>(specs, groups);
    sw_agg_accumulate_shared<<<blocks, 256, shared>>>(specs, n, slot_of_row, group_of_slot, groups, copies);
  };
  const float ms = median_ms([&] {
    sw_agg_accumulate_shared<<<blocks, 256, shared>>>(specs, n, slot_of_row, group_of_slot, groups, copies);
  });
  const int64_t* device_columns[4];
  for (int c = 0; c < count; c++) device_columns[c] = reinterpret_cast<const int64_t*>(columns[c].data);
  const int64_t** column_array;
  uint64_t* sink;
  CHECK(cudaMalloc(&column_array, sizeof device_columns));
  CHECK(cudaMalloc(&sink, 8));
  CHECK(cudaMemcpy(column_array, device_columns, sizeof device_columns, cudaMemcpyHostToDevice));
  const float read_ms =
      median_ms([&] { read_all<<<prop.multiProcessorCount * 8, 256>>>(n, slot_of_row, column_array, count, sink); });
  CHECK(cudaGetLastError());
  const double bytes = n * (4.0 + 8.0 * count + count / 8.0);
  printf("%s, shape %d, %lld rows, %d groups, %d aggregates, %d copies (%d B shared, %d blocks): accumulation %.3f ms "
         "(%.0f GB/s), plain read %.3f ms (%.0f GB/s)\n",
         prop.name, shape, static_cast<long long>(n), groups, specs.count, copies, shared, blocks, ms,
         bytes / ms / 1e6, read_ms, bytes / read_ms / 1e6);
  if (!check) return 0;

  // the reference: every aggregate's accumulators and SEEN flags, from the same rows on the host
  accumulate();
  CHECK(cudaDeviceSynchronize());
  for (Column& col : columns) {
    col.host.resize(n);
    col.host_validity.resize(words);
    CHECK(cudaMemcpy(col.host.data(), col.data, 8 * n, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(col.host_validity.data(), col.validity, 4 * words, cudaMemcpyDeviceToHost));
  }
  std::vector<int32_t> group(n);
  CHECK(cudaMemcpy(group.data(), slot_of_row, 4 * n, cudaMemcpyDeviceToHost));
  auto column_of = [&](const uint8_t* data) {
    for (int c = 0; c < count; c++) {
      if (columns[c].data == data) return c;
    }
    return -1;
  };
  int wrong = 0;
  for (int k = 0; k < specs.count; k++) {
    const AggSpec& s = specs.spec[k];
    const int in = column_of(s.data), f0 = column_of(s.factor_data[0]), f1 = column_of(s.factor_data[1]);
    const bool doubles = in >= 0 && columns[in].doubles;
    std::vector<__int128> sum(groups, 0);
    std::vector<double> fsum(groups, 0.0);
    std::vector<int64_t> rows(groups, 0), best(groups, s.op == AGG_MIN ? INT64_MAX : INT64_MIN);
    std::vector<bool> seen(groups, false);
    for (int64_t r = 0; r < n; r++) {
      const int g = group[r];
      if (s.op == AGG_COUNT_ALL) {
        rows[g]++;
        continue;
      }
      const bool valid =
          valid_at(columns[in], r) && (f0 < 0 || valid_at(columns[f0], r)) && (f1 < 0 || valid_at(columns[f1], r));
      if (!valid) continue;
      seen[g] = true;
      rows[g]++;
      const int64_t x = columns[in].host[r];
      int64_t key = x;  // a double's order-preserving key (no NaN generated)
      if (doubles) {
        double d;
        memcpy(&d, &x, 8);
        fsum[g] += d;
        if (key < 0) key ^= 0x7fffffffffffffffll;
      }
      __int128 p = x;
      if (f0 >= 0) p *= columns[f0].host[r];
      if (f1 >= 0) p *= columns[f1].host[r];
      sum[g] += p;
      best[g] = s.op == AGG_MIN ? std::min(best[g], key) : std::max(best[g], key);
    }
    std::vector<unsigned long long> acc(acc_words(s) * groups);
    std::vector<uint32_t> flags(groups);
    CHECK(cudaMemcpy(acc.data(), s.acc, 8 * acc.size(), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(flags.data(), s.flags, 4 * groups, cudaMemcpyDeviceToHost));
    for (int g = 0; g < groups; g++) {
      bool ok = true;
      if (s.op == AGG_COUNT_ALL || s.op == AGG_COUNT) {
        ok = static_cast<int64_t>(acc[g]) == rows[g];
      } else if (s.op == AGG_SUM && doubles) {
        double d;
        memcpy(&d, &acc[g], 8);
        ok = d == fsum[g];
      } else if (s.op == AGG_SUM) {
        const __int128 low = static_cast<__int128>((static_cast<unsigned __int128>(acc[3 * g + 1]) << 64) | acc[3 * g]);
        ok = low == sum[g] && acc[3 * g + 2] == (sum[g] < 0 ? ~0ull : 0ull);
      } else {
        ok = static_cast<int64_t>(acc[g]) == best[g];
      }
      if (s.op != AGG_COUNT_ALL) ok = ok && ((flags[g] & FLAG_SEEN) != 0) == seen[g];
      if (!ok && wrong++ < 10) fprintf(stderr, "aggregate %d (op %d), group %d: wrong\n", k, s.op, g);
    }
  }
  printf("check against the host: %s\n", wrong == 0 ? "ok" : "WRONG");
  return wrong == 0 ? 0 : 1;
}
