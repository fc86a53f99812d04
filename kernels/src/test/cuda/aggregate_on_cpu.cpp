// aggregate.cu on the CPU: the group table, both accumulation kernels (shared memory with 1 to 32 copies of the
// accumulators), finalisation and the mean kernel over a small batch (5 and 32 groups with a null key group; sums,
// sums of products of two and three decimals, extremes, counts), against a reference over __int128. Prints "ok" or
// the first disagreements (exit 1). Run by AggregateKernelsOnCpuTest. Dynamic shared memory is one global array,
// so the shared kernel runs its blocks in turn.
#include "warp_emulation.h"

#include <cmath>
#include <map>
#include <random>

unsigned long long shared_acc[1 << 14];  // the kernel's `extern __shared__` accumulators (one block at a time)
using std::isnan;  // CUDA has it in the global namespace

#include "aggregate.cu"

using i128 = __int128;

static int failures = 0;

static void expect(bool ok, const char* what, long long a, long long b) {
  if (!ok && failures++ < 10) fprintf(stderr, "FAIL %s (%lld, %lld)\n", what, a, b);
}

static bool bit(const std::vector<uint32_t>& bits, int64_t i) { return (bits[i >> 5] >> (i & 31)) & 1u; }
static void set_bit(std::vector<uint32_t>& bits, int64_t i) { bits[i >> 5] |= 1u << (i & 31); }

struct Column {
  std::vector<uint32_t> validity;
  std::vector<int64_t> values;
};

static Column column(int n, std::mt19937_64& rnd, int64_t bound, int null_percent) {
  Column c{std::vector<uint32_t>((n + 31) / 32 + 1), std::vector<int64_t>(n)};
  for (int i = 0; i < n; i++) {
    if (static_cast<int>(rnd() % 100) < null_percent) continue;
    set_bit(c.validity, i);
    c.values[i] = static_cast<int64_t>(rnd() % (2 * bound + 1)) - bound;
  }
  return c;
}

static AggSpec spec(int32_t op, const Column* in, int32_t result, uint64_t bound_lo, uint64_t bound_hi) {
  AggSpec s{};
  s.op = op;
  s.input = in == nullptr ? L_NONE : L_INT64;
  s.result = result;
  s.validity = in == nullptr ? nullptr : in->validity.data();
  s.data = in == nullptr ? nullptr : reinterpret_cast<const uint8_t*>(in->values.data());
  s.bound_lo = bound_lo;
  s.bound_hi = bound_hi;
  return s;
}

// Groups `key_values` keys and a null key through the group table, then accumulates and finalises count(*),
// count, sum, sums of products of two and three, and an extreme in every accumulation: global atomics over 3
// blocks, and shared memory over 3 blocks in turn with 1, 2, 8 and 32 copies of the accumulators.
static void check_groups(int key_values, std::mt19937_64& rnd) {
  const int n = 1000;
  Column key = column(n, rnd, 1, 5);
  for (int i = 0; i < n; i++) key.values[i] = (i * 7) % key_values;
  std::vector<int32_t> key32(n);
  for (int i = 0; i < n; i++) key32[i] = static_cast<int32_t>(key.values[i]);
  Column x = column(n, rnd, 1000000, 10), a = column(n, rnd, 999999999, 10), b = column(n, rnd, 999999999, 10),
         c = column(n, rnd, 999, 10);
  KeyColumns keys{};
  keys.count = 1;
  keys.column[0] = {key.validity.data(), nullptr, reinterpret_cast<const uint8_t*>(key32.data()), KEY_INT32, 1};
  // the group table
  const uint64_t slots = 2048;
  std::vector<unsigned long long> table(slots, EMPTY_SLOT);
  std::vector<int32_t> slot_of_row(n), group_of_slot(slots + 1), first_rows(slots);
  launch(2, 64, [&] { sw_agg_insert(keys, n, table.data(), slots - 1, slot_of_row.data()); });
  launch(2, 64, [&] { sw_agg_slot_flags(table.data(), slots, group_of_slot.data()); });
  int32_t groups = 0;
  for (uint64_t s = 0; s <= slots; s++) {  // the scan scan.cu does
    int32_t flag = s < slots ? group_of_slot[s] : 0;
    group_of_slot[s] = groups;
    groups += flag;
  }
  launch(2, 64, [&] { sw_agg_first_rows(table.data(), slots, group_of_slot.data(), first_rows.data()); });
  expect(groups == key_values + 1, "groups", groups, key_values + 1);
  // the reference per key (-1: the null key)
  struct Ref {
    int64_t rows = 0, count = 0, min = INT64_MAX, max = INT64_MIN;
    i128 sum = 0, ab = 0, abc = 0;
    bool seen_x = false, seen_ab = false, seen_abc = false;
  };
  std::map<int64_t, Ref> ref;
  for (int i = 0; i < n; i++) {
    Ref& r = ref[bit(key.validity, i) ? key.values[i] : -1];
    r.rows++;
    if (bit(x.validity, i)) {
      r.count++;
      r.sum += x.values[i];
      r.min = std::min(r.min, x.values[i]);
      r.max = std::max(r.max, x.values[i]);
      r.seen_x = true;
    }
    if (bit(a.validity, i) && bit(b.validity, i)) {
      r.ab += static_cast<i128>(a.values[i]) * b.values[i];
      r.seen_ab = true;
      if (bit(c.validity, i)) {
        r.abc += static_cast<i128>(a.values[i]) * b.values[i] * c.values[i];
        r.seen_abc = true;
      }
    }
  }
  const unsigned __int128 bound = static_cast<unsigned __int128>(1) << 120;
  for (int32_t copies : {0, 1, 2, 8, 32}) {  // 0: global atomics
    const int k = 6;
    const bool minimum = copies == 1 || copies == 8;
    std::vector<std::vector<unsigned long long>> acc(k, std::vector<unsigned long long>(3 * groups));
    std::vector<std::vector<uint32_t>> flags(k, std::vector<uint32_t>(groups)), valid(k, std::vector<uint32_t>(2));
    std::vector<std::vector<uint64_t>> out(k, std::vector<uint64_t>(2 * groups));
    uint32_t overflow[k] = {0};
    AggSpecs specs{};
    specs.count = k;
    specs.spec[0] = spec(AGG_COUNT_ALL, nullptr, L_INT64, 0, 0);
    specs.spec[1] = spec(AGG_COUNT, &x, L_INT64, 0, 0);
    specs.spec[2] = spec(AGG_SUM, &x, L_INT64, 0, 0);
    specs.spec[3] = spec(AGG_SUM, &a, L_INT128, static_cast<uint64_t>(bound), static_cast<uint64_t>(bound >> 64));
    specs.spec[3].factor_validity[0] = b.validity.data();
    specs.spec[3].factor_data[0] = reinterpret_cast<const uint8_t*>(b.values.data());
    specs.spec[4] = specs.spec[3];
    specs.spec[4].factor_validity[1] = c.validity.data();
    specs.spec[4].factor_data[1] = reinterpret_cast<const uint8_t*>(c.values.data());
    specs.spec[5] = spec(minimum ? AGG_MIN : AGG_MAX, &x, L_INT64, 0, 0);
    for (int s = 0; s < k; s++) {
      specs.spec[s].acc = acc[s].data();
      specs.spec[s].flags = flags[s].data();
      specs.spec[s].out_validity = valid[s].data();
      specs.spec[s].out_data = reinterpret_cast<uint8_t*>(out[s].data());
      specs.spec[s].overflow = &overflow[s];
    }
    // 10 accumulator words and 6 flag words a group and copy
    expect(static_cast<size_t>(groups) * copies * (10 * 8 + 6 * 4) <= sizeof shared_acc, "shared memory", groups,
           copies);
    launch(1, 64, [&] { sw_agg_init(specs, groups); });
    if (copies == 0) {
      launch(3, 64, [&] { sw_agg_accumulate(specs, n, slot_of_row.data(), group_of_slot.data()); });
    } else {
      launch_blocks_in_turn(3, 64, [&] {
        sw_agg_accumulate_shared(specs, n, slot_of_row.data(), group_of_slot.data(), groups, copies);
      });
    }
    launch(1, 64, [&] { sw_agg_finalize(specs, groups); });
    for (int g = 0; g < groups; g++) {
      int row = first_rows[g];
      const Ref& r = ref[bit(key.validity, row) ? key.values[row] : -1];
      auto wide = [&](int s) { return static_cast<i128>((static_cast<unsigned __int128>(out[s][2 * g + 1]) << 64)
                                                        | out[s][2 * g]); };
      auto narrow = [&](int s) { return static_cast<int64_t>(out[s][g]); };
      expect(narrow(0) == r.rows, "count(*)", g, copies);
      expect(narrow(1) == r.count, "count", g, copies);
      expect(bit(valid[2], g) == r.seen_x && (!r.seen_x || narrow(2) == static_cast<int64_t>(r.sum)), "sum", g,
             copies);
      expect(bit(valid[3], g) == r.seen_ab && (!r.seen_ab || wide(3) == r.ab), "sum of a * b", g, copies);
      expect(bit(valid[4], g) == r.seen_abc && (!r.seen_abc || wide(4) == r.abc), "sum of a * b * c", g, copies);
      int64_t extreme = minimum ? r.min : r.max;
      expect(bit(valid[5], g) == r.seen_x && (!r.seen_x || narrow(5) == extreme), "extreme", g, copies);
    }
    for (int s = 0; s < k; s++) expect(overflow[s] == 0, "no overflow", s, copies);
  }
}

int main() {
  std::mt19937_64 rnd(777);
  check_groups(4, rnd);   // TPC-H Q1's 4 groups, and the null key's
  check_groups(31, rnd);  // 32 groups
  const int n = 1000;
  Column a = column(n, rnd, 999999999, 10);
  // the mean: sums of scale 2 into a result of scale 6, rounded half up; zero counts and null sums give null
  std::vector<int64_t> counts(n);
  Column count_col = column(n, rnd, 50, 5);
  for (int i = 0; i < n; i++) counts[i] = count_col.values[i] < 0 ? -count_col.values[i] : count_col.values[i];
  std::vector<uint32_t> mean_valid((n + 31) / 32 + 1);
  std::vector<int64_t> mean(n);
  uint32_t mean_overflow = 0;
  launch(2, 64, [&] {
    sw_agg_mean(a.validity.data(), reinterpret_cast<const uint8_t*>(a.values.data()), L_INT64,
                count_col.validity.data(), counts.data(), n, 10000, 1000000000000000000ull, 0, L_INT64,
                mean_valid.data(), reinterpret_cast<uint8_t*>(mean.data()), &mean_overflow);
  });
  bool any_null_sum = false;
  for (int i = 0; i < n; i++) {
    int64_t cnt = bit(count_col.validity, i) ? counts[i] : 0;
    bool expect_valid = cnt != 0 && bit(a.validity, i);
    any_null_sum |= cnt != 0 && !bit(a.validity, i);
    expect(bit(mean_valid, i) == expect_valid, "mean validity", i, cnt);
    if (!expect_valid) continue;
    i128 p = static_cast<i128>(a.values[i]) * 10000;
    i128 m = p < 0 ? -p : p;
    i128 q = m / cnt, rem = m % cnt;
    if (2 * rem >= cnt) q++;
    if (p < 0) q = -q;
    expect(mean[i] == static_cast<int64_t>(q), "mean", a.values[i], cnt);
  }
  expect((mean_overflow != 0) == any_null_sum, "mean overflow flag", mean_overflow, any_null_sum);
  if (failures == 0) printf("ok\n");
  return failures == 0 ? 0 : 1;
}
