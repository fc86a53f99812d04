// aggregate.cu on the CPU: the group table, the accumulation kernels (global atomics, shared memory with 1 to 32
// copies of the accumulators), finalisation and the mean kernel over a small batch (5 and 32 groups with a null key
// group; sums, sums of products of two and three decimals, extremes, counts), against a reference over __int128; and
// the accumulation in registers (check_registers) for every aggregate kind. Prints "ok" or the first disagreements
// (exit 1). Run by AggregateKernelsOnCpuTest. Dynamic shared memory is one global array, so the kernels that use it
// run their blocks in turn.
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

// An input column of the register kernels' check: Arrow's bytes of a layout, its validity, and each row's value as
// the reference reads it (an integer, or a double for FLOAT and DOUBLE).
struct Input {
  int32_t layout;
  std::vector<uint8_t> bytes;
  std::vector<uint32_t> validity;
  std::vector<i128> ints;
  std::vector<double> doubles;
};

static Input input(int32_t layout, int n, std::mt19937_64& rnd) {
  const int width = layout == L_INT8 ? 1 : layout == L_INT16 ? 2 : layout == L_INT32 || layout == L_FLOAT ? 4
                    : layout == L_INT128 ? 16 : 8;
  Input in{layout, std::vector<uint8_t>(static_cast<size_t>(width) * n + 8), std::vector<uint32_t>(n / 32 + 1),
           std::vector<i128>(n), std::vector<double>(n)};
  const double specials[] = {NAN, INFINITY, -INFINITY, -0.0, 0.0};
  for (int i = 0; i < n; i++) {
    if (rnd() % 10 != 0) set_bit(in.validity, i);
    const int64_t r = static_cast<int64_t>(rnd());
    switch (layout) {
      case L_BOOL:
        in.ints[i] = r & 1;
        if (r & 1) in.bytes[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
        break;
      case L_INT8: in.ints[i] = static_cast<int8_t>(r); break;
      case L_INT16: in.ints[i] = static_cast<int16_t>(r); break;
      case L_INT32: in.ints[i] = static_cast<int32_t>(r); break;
      case L_INT128: in.ints[i] = static_cast<i128>(r) << 36 | static_cast<uint32_t>(rnd()); break;  // about 2^99
      case L_FLOAT:  // zeros of both signs (Spark orders -0.0 below 0.0; their sum is 0.0), rarely NaN or infinite
        in.doubles[i] = rnd() % 1000 == 0 ? specials[rnd() % 3] : r & 1 ? -0.0 : 0.0;
        break;
      case L_DOUBLE:  // integers (exact sums in any order), rarely NaN, infinite or a zero
        in.doubles[i] = rnd() % 500 == 0 ? specials[rnd() % 5] : static_cast<double>(r % 2000001 - 1000000);
        break;
      default: in.ints[i] = r % 5 == 0 ? r : r % 1000000000; break;  // full-range longs carry into the next word
    }
    if (layout == L_INT8 || layout == L_INT16 || layout == L_INT32 || layout == L_INT64 || layout == L_INT128) {
      memcpy(&in.bytes[static_cast<size_t>(width) * i], &in.ints[i], width);  // little-endian two's complement
    } else if (layout == L_FLOAT) {
      const float f = static_cast<float>(in.doubles[i]);
      memcpy(&in.bytes[4 * i], &f, 4);
    } else if (layout == L_DOUBLE) {
      memcpy(&in.bytes[8 * i], &in.doubles[i], 8);
    }
  }
  return in;
}

// Spark's order of doubles: NaN above everything, -0.0 below 0.0 (Double.compare).
static bool spark_less(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return !std::isnan(a) && std::isnan(b);
  if (a == 0 && b == 0) return std::signbit(a) && !std::signbit(b);
  return a < b;
}

// What an aggregate's accumulator of one group must hold.
struct Expected {
  int64_t count = 0;
  i128 sum = 0;
  double fsum = 0.0;
  bool has_best = false;
  i128 best = 0;
  double fbest = 0.0;
  uint32_t flags = 0;
};

// sw_agg_accumulate_registers over `groups` groups reached through 8 slots (none: a global aggregate), every
// aggregate kind over inputs of every layout it takes, with nulls, masks, a sum poisoned by nulls, NaN, infinities
// and zeros of both signs; their accumulators and flag words against a reference over __int128 and doubles summed
// in row order (integer-valued, so exact in any order).
static void check_registers(int n, int groups, bool global, std::mt19937_64& rnd) {
  std::vector<Input> in;
  for (int32_t l : {L_BOOL, L_INT8, L_INT16, L_INT32, L_INT64, L_INT128, L_FLOAT, L_DOUBLE}) {
    in.push_back(input(l, n, rnd));
  }
  const Input& longs = in[4];
  const Input& mask = in[0];
  // factors of decimal products, as int64 columns: 32-bit values, and 16-bit for the third
  auto factor = [&](int32_t layout) {
    Input f = input(layout, n, rnd);
    f.bytes.assign(8 * static_cast<size_t>(n) + 8, 0);
    for (int i = 0; i < n; i++) memcpy(&f.bytes[8 * i], &f.ints[i], 8);
    return f;
  };
  const Input a = factor(L_INT32), b = factor(L_INT32), c = factor(L_INT16);
  std::vector<int32_t> slot_of_row(n + 1), group_of_slot(8), group(n);
  for (int s = 0; s < 8; s++) group_of_slot[s] = s % groups;
  for (int i = 0; i < n; i++) {
    slot_of_row[i] = static_cast<int32_t>(rnd() % 8);
    group[i] = global ? 0 : group_of_slot[slot_of_row[i]];
  }
  AggSpecs specs{};  // MAX_AGGREGATES of them, in one launch: the emulated launches cost CI time
  auto add = [&](int32_t op, const Input* x, int32_t options = 0, const Input* m = nullptr) {
    AggSpec& s = specs.spec[specs.count++];
    s.op = op;
    s.input = x == nullptr ? L_NONE : x->layout;
    s.validity = x == nullptr ? nullptr : x->validity.data();
    s.data = x == nullptr ? nullptr : x->bytes.data();
    s.options = options;
    s.mask_validity = m == nullptr ? nullptr : m->validity.data();
    s.mask_bits = m == nullptr ? nullptr : reinterpret_cast<const uint32_t*>(m->bytes.data());
    return &s;
  };
  add(AGG_COUNT_ALL, nullptr);
  add(AGG_COUNT_ALL, nullptr, 0, &mask);
  add(AGG_COUNT, &in[6], OPT_MASK_FALSE, &mask);
  for (int l = 1; l < 8; l++) add(AGG_SUM, &in[l]);  // every layout but booleans
  add(AGG_SUM, &longs, OPT_NULL_POISONS);
  add(AGG_SUM, &longs, 0, &mask);
  add(AGG_SUM, &in[7], OPT_MASK_FALSE, &mask);
  for (int factors = 1; factors <= 2; factors++) {
    AggSpec* s = add(AGG_SUM, &a);
    s->factor_validity[0] = b.validity.data();
    s->factor_data[0] = b.bytes.data();
    if (factors == 2) {
      s->factor_validity[1] = c.validity.data();
      s->factor_data[1] = c.bytes.data();
    }
  }
  // extremes of every layout but the 128-bit (RankedExtremes' ranks), both ways on floats and doubles
  for (int l : {0, 2, 4, 6}) add(AGG_MIN, &in[l]);
  add(AGG_MIN, &in[7], 0, &mask);
  for (int l : {1, 3, 6, 7}) add(AGG_MAX, &in[l]);
  auto input_of = [&](const AggSpec& s) {  // the input the reference reads for an AggSpec's data
    if (s.data == a.bytes.data()) return &a;
    for (const Input& x : in) {
      if (x.bytes.data() == s.data) return &x;
    }
    return static_cast<const Input*>(nullptr);
  };
  const int k = specs.count;
  std::vector<std::vector<unsigned long long>> acc(k, std::vector<unsigned long long>(3 * groups));
  std::vector<std::vector<uint32_t>> flags(k, std::vector<uint32_t>(groups));
  for (int s = 0; s < k; s++) {
    specs.spec[s].acc = acc[s].data();
    specs.spec[s].flags = flags[s].data();
  }
  launch(1, 64, [&] { sw_agg_init(specs, groups); });
  const int32_t* slots = global ? nullptr : slot_of_row.data();
  const int32_t* numbers = global ? nullptr : group_of_slot.data();
  launch_blocks_in_turn(2, 64, [&] { sw_agg_accumulate_registers(specs, n, slots, numbers, groups); });
  for (int s = 0; s < k; s++) {
    const AggSpec& spec = specs.spec[s];
    const Input* x = input_of(spec);
    std::vector<Expected> want(groups);
    for (int i = 0; i < n; i++) {
      Expected& e = want[group[i]];
      const bool in_mask = spec.mask_bits == nullptr
                           || (bit(mask.validity, i) && (mask.ints[i] != 0) != ((spec.options & OPT_MASK_FALSE) != 0));
      if (spec.op == AGG_COUNT_ALL) {
        e.count += in_mask;
        continue;
      }
      bool valid = bit(x->validity, i);
      if (spec.factor_data[0] != nullptr) valid = valid && bit(b.validity, i);
      if (spec.factor_data[1] != nullptr) valid = valid && bit(c.validity, i);
      if (!in_mask) continue;
      if (!valid) {
        if (spec.options & OPT_NULL_POISONS) e.flags |= FLAG_POISONED;
        continue;
      }
      e.flags |= FLAG_SEEN;
      e.count++;
      const bool floating = x->layout == L_FLOAT || x->layout == L_DOUBLE;
      const double d = x->layout == L_FLOAT ? static_cast<double>(static_cast<float>(x->doubles[i])) : x->doubles[i];
      if (spec.op == AGG_SUM && floating) {
        e.fsum += d;
      } else if (spec.op == AGG_SUM) {
        i128 v = x->ints[i];
        if (spec.factor_data[0] != nullptr) v *= b.ints[i];
        if (spec.factor_data[1] != nullptr) v *= c.ints[i];
        e.sum += v;
      } else if (floating) {
        if (!e.has_best || (spec.op == AGG_MIN ? spark_less(d, e.fbest) : spark_less(e.fbest, d))) e.fbest = d;
        e.has_best = true;
      } else {
        if (!e.has_best || (spec.op == AGG_MIN ? x->ints[i] < e.best : x->ints[i] > e.best)) e.best = x->ints[i];
        e.has_best = true;
      }
    }
    for (int g = 0; g < groups; g++) {
      const Expected& e = want[g];
      const unsigned long long* w = &acc[s][0];
      bool ok;
      if (spec.op == AGG_COUNT_ALL || spec.op == AGG_COUNT) {
        ok = static_cast<int64_t>(w[g]) == e.count;
      } else if (spec.op == AGG_SUM && sums_floating(spec)) {
        double got;
        memcpy(&got, &w[g], 8);
        ok = std::isnan(got) ? std::isnan(e.fsum) : memcmp(&got, &e.fsum, 8) == 0;  // the sign of a zero too
      } else if (spec.op == AGG_SUM) {
        const unsigned long long sign = e.sum < 0 ? ~0ull : 0ull;
        ok = w[3 * g] == static_cast<unsigned long long>(e.sum)
             && w[3 * g + 1] == static_cast<unsigned long long>(static_cast<unsigned __int128>(e.sum) >> 64)
             && w[3 * g + 2] == sign;
      } else if (!e.has_best) {
        ok = static_cast<int64_t>(w[g]) == (spec.op == AGG_MIN ? INT64_MAX : INT64_MIN);
      } else if (sums_floating(spec)) {
        const double got = key_double(static_cast<int64_t>(w[g]));
        ok = std::isnan(got) ? std::isnan(e.fbest) : memcmp(&got, &e.fbest, 8) == 0;
      } else {
        ok = static_cast<int64_t>(w[g]) == static_cast<int64_t>(e.best);
      }
      if (spec.op != AGG_COUNT_ALL) ok = ok && flags[s][g] == e.flags;
      expect(ok, "register accumulator (aggregate, group)", s, g);
    }
  }
}

int main() {
  std::mt19937_64 rnd(777);
  check_groups(4, rnd);   // TPC-H Q1's 4 groups, and the null key's
  check_groups(31, rnd);  // 32 groups
  // the accumulation in registers: a global aggregate and 1 to 4 groups over 2 blocks of 64 threads (1024-row
  // chunks) of three chunks with a partial last one (block 0 takes two); no rows, and one row
  check_registers(2100, 1, true, rnd);
  for (int groups = 1; groups <= 4; groups++) check_registers(2100, groups, false, rnd);
  check_registers(0, 1, true, rnd);
  check_registers(0, 3, false, rnd);
  check_registers(1, 2, false, rnd);
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
