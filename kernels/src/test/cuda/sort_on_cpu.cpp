// sort.cu on the CPU: the key statistics, the digit kernels and the passes composed with grouping.cu's grouping, and
// the pair passes over keys packed into one word (onesweep.cuh: the histograms of every pass, then a kernel a pass),
// as io.sparkwarp.kernels.sort.DeviceSort plans and runs them, against std::stable_sort with Spark's ordering written
// directly: every fixed-width kind (ints and longs with their extremes, longs of a narrow range, doubles and floats
// with NaN payloads, a negative NaN too, -0.0 and infinities), strings with prefixes, NUL and high bytes, 128-bit
// decimals, booleans; no nulls, some or only nulls; both directions and null placements, one to three keys, tiles of
// several lengths. The pair passes also over raw words: 0 rows to many tiles, every digit or a few, equal words, one
// varying middle digit, skew; and the look-back waiting on many predecessors. Prints "ok" or the disagreements (exit
// 1). Run by SortKernelsOnCpuTest.
#include "warp_emulation.h"
#include "grouping.cu"
#include "sort.cu"
#include "grouping_on_cpu.h"

static_assert(sizeof(onesweep::PassShared<PairPayload::STAGED_BYTES>) <= sizeof(sw_group_shared),
              "the pair passes' shared memory does not fit the harness's");

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace {

using namespace sparkwarp::expr;

int failures = 0;

void expect(bool ok, const std::string& what, long long a, long long b) {
  if (!ok && failures++ < 10) fprintf(stderr, "FAIL %s (%lld, %lld)\n", what.c_str(), a, b);
}

// A key column in the device layout: fixed-width values in 8-byte words (so doubles are aligned), or string bytes
// and int32 offsets; the validity bitmap as 32-bit words.
struct Column {
  int32_t kind;
  int64_t n;
  std::vector<uint64_t> words;
  std::vector<uint8_t> bytes;
  std::vector<int32_t> offsets;
  std::vector<uint32_t> validity;

  const uint8_t* data() const {
    return kind == KIND_STRING ? bytes.data() : reinterpret_cast<const uint8_t*>(words.data());
  }
  bool valid(int64_t i) const { return (validity[i >> 5] >> (i & 31)) & 1u; }
  int32_t length(int64_t i) const { return offsets[i + 1] - offsets[i]; }
  template <typename T>
  T at(int64_t i) const {
    return reinterpret_cast<const T*>(words.data())[i];
  }
};

struct Key {
  const Column* column;
  bool ascending;
  bool nulls_first;
};

// n rows, each null with probability `nulls`, else value(i) written by `set`; `width` bytes per value.
template <typename Set>
Column fixed(int32_t kind, int64_t n, int width, double nulls, std::mt19937_64& rnd, Set set) {
  Column c{kind, n, std::vector<uint64_t>((n * width + 7) / 8 + 1), {}, {}, std::vector<uint32_t>(n / 32 + 1, 0)};
  std::uniform_real_distribution<double> u(0, 1);
  for (int64_t i = 0; i < n; i++) {
    if (u(rnd) >= nulls) c.validity[i >> 5] |= 1u << (i & 31);
    set(reinterpret_cast<uint8_t*>(c.words.data()), i);  // nulls get a value too: the kernels must ignore it
  }
  return c;
}

template <typename T>
T pick(const std::vector<T>& pool, std::mt19937_64& rnd) {
  return pool[rnd() % pool.size()];
}

Column ints(int64_t n, double nulls, std::mt19937_64& rnd) {
  const std::vector<int32_t> pool = {INT32_MIN, INT32_MAX, -1, 0, 1, 255, 256, -256, 65536, -65537};
  return fixed(KIND_INT, n, 4, nulls, rnd, [&](uint8_t* d, int64_t i) {
    reinterpret_cast<int32_t*>(d)[i] = rnd() % 2 ? pick(pool, rnd) : static_cast<int32_t>(rnd());
  });
}

// Full-range values, or (narrow) base + 16 * (a few thousand), so that the low 4 bits and the high ones tie.
Column longs(int32_t kind, int64_t n, double nulls, bool narrow, std::mt19937_64& rnd) {
  const std::vector<int64_t> pool = {INT64_MIN, INT64_MAX, -1, 0, 1, 255, 256, -256};
  const int64_t base = static_cast<int64_t>(rnd()) >> 8;
  return fixed(kind, n, 8, nulls, rnd, [&](uint8_t* d, int64_t i) {
    reinterpret_cast<int64_t*>(d)[i] = narrow ? base + 16 * static_cast<int64_t>(rnd() % 5000)
                                              : rnd() % 2 ? pick(pool, rnd) : static_cast<int64_t>(rnd());
  });
}

Column narrow_ints(int32_t kind, int64_t n, double nulls, std::mt19937_64& rnd) {
  return fixed(kind, n, 4, nulls, rnd, [&](uint8_t* d, int64_t i) {
    reinterpret_cast<int32_t*>(d)[i] = -300 + static_cast<int32_t>(rnd() % 700);
  });
}

Column shorts(int64_t n, double nulls, std::mt19937_64& rnd) {
  const std::vector<int16_t> pool = {INT16_MIN, INT16_MAX, -1, 0, 1, 255, 256, -256};
  return fixed(KIND_SHORT, n, 2, nulls, rnd, [&](uint8_t* d, int64_t i) {
    reinterpret_cast<int16_t*>(d)[i] = rnd() % 2 ? pick(pool, rnd) : static_cast<int16_t>(rnd());
  });
}

Column bytes(int64_t n, double nulls, std::mt19937_64& rnd) {
  return fixed(KIND_BYTE, n, 1, nulls, rnd,
               [&](uint8_t* d, int64_t i) { d[i] = static_cast<uint8_t>(rnd() % 7 * 40); });
}

double bits_to_double(uint64_t bits) {
  double d;
  memcpy(&d, &bits, 8);
  return d;
}

Column doubles(int64_t n, double nulls, std::mt19937_64& rnd) {
  const std::vector<double> pool = {NAN, bits_to_double(0x7ff8000000000001ull), bits_to_double(0xfff8000000000000ull),
                                    bits_to_double(0x7ff0000000000001ull), -0.0, 0.0, INFINITY, -INFINITY, 1.0, -1.0,
                                    4.9e-324, -4.9e-324, 1.7976931348623157e308, -1.7976931348623157e308};
  std::normal_distribution<double> g(0, 1e6);
  return fixed(KIND_DOUBLE, n, 8, nulls, rnd, [&](uint8_t* d, int64_t i) {
    reinterpret_cast<double*>(d)[i] = rnd() % 2 ? pick(pool, rnd) : std::round(g(rnd));
  });
}

Column floats(int64_t n, double nulls, std::mt19937_64& rnd) {
  float nan_payload, negative_nan;
  const uint32_t payload_bits = 0x7fc00001u, negative_bits = 0xffc00000u;
  memcpy(&nan_payload, &payload_bits, 4);
  memcpy(&negative_nan, &negative_bits, 4);
  const std::vector<float> pool = {NAN, nan_payload, negative_nan, -0.0f, 0.0f, INFINITY, -INFINITY, 1.0f, -1.0f,
                                   1.4e-45f, -1.4e-45f, 3.4028235e38f, -3.4028235e38f};
  std::normal_distribution<float> g(0, 1e4f);
  return fixed(KIND_FLOAT, n, 4, nulls, rnd, [&](uint8_t* d, int64_t i) {
    reinterpret_cast<float*>(d)[i] = rnd() % 2 ? pick(pool, rnd) : std::round(g(rnd));
  });
}

Column decimals(int64_t n, double nulls, std::mt19937_64& rnd) {
  const __int128 ten19 = static_cast<__int128>(10000000000000000000ull);
  const std::vector<__int128> pool = {0, -1, 1, ten19 * ten19 - 1, -(ten19 * ten19 - 1), ten19, -ten19,
                                      static_cast<__int128>(INT64_MAX) + 1, static_cast<__int128>(INT64_MIN) - 1};
  return fixed(KIND_DECIMAL128, n, 16, nulls, rnd, [&](uint8_t* d, int64_t i) {
    const __int128 v = rnd() % 2 ? pick(pool, rnd) : static_cast<__int128>(static_cast<int64_t>(rnd())) * 1000;
    memcpy(d + 16 * i, &v, 16);  // little-endian, as Arrow
  });
}

Column booleans(int64_t n, double nulls, std::mt19937_64& rnd) {
  return fixed(KIND_BOOLEAN, n, 1, nulls, rnd, [&](uint8_t* d, int64_t i) {
    if (rnd() % 2) d[i >> 3] |= static_cast<uint8_t>(1u << (i & 7));
  });
}

// Up to max_length bytes from a small alphabet, so prefixes are common: NUL, ASCII, and bytes above 0x7f.
Column strings(int64_t n, double nulls, int max_length, std::mt19937_64& rnd) {
  const std::vector<uint8_t> alphabet = {0x00, 'a', 'b', 'Z', 0x7f, 0x80, 0xc3, 0xff};
  Column c{KIND_STRING, n, {}, {}, {0}, std::vector<uint32_t>(n / 32 + 1, 0)};
  std::uniform_real_distribution<double> u(0, 1);
  for (int64_t i = 0; i < n; i++) {
    if (u(rnd) >= nulls) c.validity[i >> 5] |= 1u << (i & 31);
    const int length = static_cast<int>(rnd() % (max_length + 1));
    for (int k = 0; k < length; k++) c.bytes.push_back(pick(alphabet, rnd));
    c.offsets.push_back(static_cast<int32_t>(c.bytes.size()));
  }
  c.bytes.shrink_to_fit();  // the sanitizer then catches a read past the last string
  return c;
}

// Spark's ordering of two valid values: SQLOrderingUtil for doubles, unsigned bytes for strings.
int compare_values(const Column& c, int64_t a, int64_t b) {
  auto three_way = [](auto x, auto y) { return x < y ? -1 : x > y ? 1 : 0; };
  switch (c.kind) {
    case KIND_BOOLEAN: return three_way((c.data()[a >> 3] >> (a & 7)) & 1, (c.data()[b >> 3] >> (b & 7)) & 1);
    case KIND_BYTE: return three_way(c.at<int8_t>(a), c.at<int8_t>(b));
    case KIND_SHORT: return three_way(c.at<int16_t>(a), c.at<int16_t>(b));
    case KIND_INT:
    case KIND_DATE: return three_way(c.at<int32_t>(a), c.at<int32_t>(b));
    case KIND_LONG:
    case KIND_TIMESTAMP:
    case KIND_DECIMAL: return three_way(c.at<int64_t>(a), c.at<int64_t>(b));
    case KIND_FLOAT: {
      const float x = c.at<float>(a), y = c.at<float>(b);
      if (x == y) return 0;
      const bool nan_x = x != x, nan_y = y != y;
      if (nan_x || nan_y) return nan_x == nan_y ? 0 : nan_x ? 1 : -1;
      return x < y ? -1 : 1;
    }
    case KIND_DOUBLE: {
      const double x = c.at<double>(a), y = c.at<double>(b);
      if (x == y) return 0;  // -0.0 == 0.0
      const bool nan_x = x != x, nan_y = y != y;
      if (nan_x || nan_y) return nan_x == nan_y ? 0 : nan_x ? 1 : -1;  // NaN equals NaN, above everything
      return x < y ? -1 : 1;
    }
    case KIND_DECIMAL128: {
      __int128 x, y;
      memcpy(&x, c.data() + 16 * a, 16);
      memcpy(&y, c.data() + 16 * b, 16);
      return three_way(x, y);
    }
    default: {  // KIND_STRING
      const int32_t la = c.length(a), lb = c.length(b);
      const int m = memcmp(c.bytes.data() + c.offsets[a], c.bytes.data() + c.offsets[b], std::min(la, lb));
      return m != 0 ? three_way(m, 0) : three_way(la, lb);
    }
  }
}

bool less_than(const std::vector<Key>& keys, int64_t a, int64_t b) {
  for (const Key& k : keys) {
    const Column& c = *k.column;
    const bool null_a = !c.valid(a), null_b = !c.valid(b);
    int r;
    if (null_a || null_b) {
      r = null_a && null_b ? 0 : (null_a == k.nulls_first ? -1 : 1);
    } else {
      r = compare_values(c, a, b);
      if (!k.ascending) r = -r;
    }
    if (r != 0) return r < 0;
  }
  return false;
}

struct Pass {
  Key key;
  int32_t position;  // -1: the null pass
  int32_t buckets;
};

int32_t buckets_of(int32_t kind) { return kind == KIND_BOOLEAN ? 2 : kind == KIND_STRING ? 257 : 256; }
int32_t key_bytes(int32_t kind) {
  switch (kind) {
    case KIND_BOOLEAN:
    case KIND_BYTE: return 1;
    case KIND_SHORT: return 2;
    case KIND_INT:
    case KIND_DATE:
    case KIND_FLOAT: return 4;
    case KIND_DECIMAL128: return 16;
    default: return 8;
  }
}

// The statistics kernel's words of a key column, whose null count and longest string are checked on the way.
std::vector<unsigned long long> statistics(const Column& c, int64_t n) {
  std::vector<unsigned long long> stats(6, 0);
  launch(2, 64, [&] { sw_sort_key_stats(c.kind, c.data(), c.validity.data(), c.offsets.data(), n, stats.data()); });
  long long nulls = 0, longest = 0;
  for (int64_t i = 0; i < n; i++) {
    if (!c.valid(i)) nulls++;
    else if (c.kind == KIND_STRING) longest = std::max<long long>(longest, c.length(i));
  }
  expect(static_cast<long long>(stats[5]) == nulls, "null count", stats[5], nulls);
  unsigned long long counted = 0;
  launch(2, 64, [&] { sw_sort_null_count(c.validity.data(), n, &counted); });
  expect(static_cast<long long>(counted) == nulls, "null count from the validity alone", counted, nulls);
  expect(static_cast<long long>(stats[4]) == longest, "longest string", stats[4], longest);
  return stats;
}

// DeviceSort's plan of digit passes from the statistics.
std::vector<Pass> plan(const std::vector<Key>& keys, int64_t n) {
  std::vector<Pass> passes;
  for (int k = static_cast<int>(keys.size()) - 1; k >= 0; k--) {
    const Column& c = *keys[k].column;
    const std::vector<unsigned long long> stats = statistics(c, n);
    const long long nulls = static_cast<long long>(stats[5]);
    if (c.kind == KIND_STRING) {
      for (int32_t p = static_cast<int32_t>(stats[4]) - 1; p >= 0; p--) passes.push_back({keys[k], p, 257});
    } else {
      for (int32_t b = 0; b < key_bytes(c.kind); b++) {
        const uint64_t varying = b < 8 ? stats[0] & stats[2] : stats[1] & stats[3];
        if ((varying >> (8 * (b & 7))) & 0xffu) passes.push_back({keys[k], b, buckets_of(c.kind)});
      }
    }
    if (nulls > 0 && nulls < n) passes.push_back({keys[k], -1, 2});
  }
  if (passes.empty()) passes.push_back({keys[0], -1, 2});
  return passes;
}

// One stable grouping of `values` (row indices where null) by digits, by the path CudaStableGrouping takes: blocks
// of one chunk a tile up to block_grouping::BUCKETS buckets, else warps with tiles of tile_rows.
void group(const std::vector<int32_t>& digits, int64_t n, int32_t buckets, const int32_t* values, int32_t tile_rows,
           std::vector<int32_t>& out) {
  const bool block_path = buckets <= block_grouping::BUCKETS;
  group_on_cpu(digits.data(), n, buckets, values, block_path, block_path ? block_grouping::CHUNK : tile_rows,
               out.data(), nullptr);
}

// The order DeviceSort computes, through the kernels.
std::vector<int32_t> device_order(const std::vector<Key>& keys, int64_t n, int32_t tile_rows) {
  std::vector<int32_t> order, next(n), digits(n);
  if (n == 0) return order;
  for (const Pass& pass : plan(keys, n)) {
    const Column& c = *pass.key.column;
    const int32_t* current = order.empty() ? nullptr : order.data();
    if (pass.position < 0) {
      launch(2, 64, [&] { sw_sort_null_digits(c.validity.data(), current, n, pass.key.nulls_first, digits.data()); });
    } else {
      launch(2, 64, [&] {
        sw_sort_digits(c.kind, c.data(), c.validity.data(), c.offsets.data(), current, n, pass.position,
                       !pass.key.ascending, digits.data());
      });
    }
    for (int64_t j = 0; j < n; j++) {
      expect(digits[j] >= 0 && digits[j] < pass.buckets, "digit in range", digits[j], pass.buckets);
    }
    group(digits, n, pass.buckets, current, tile_rows, next);
    order.swap(next);
    next.resize(n);
  }
  return order;
}

// io.sparkwarp.kernels.sort.PackedKeys: the keys' fields of one word, the word's varying bits, and the key whose
// nulls a last pass places (null if none).
struct Packed {
  sparkwarp::sort_keys::PackedKeys keys{};
  uint64_t varying = 0;
  const Key* null_pass = nullptr;
};

// PackedKeys.plan from the statistics kernel; false where the keys do not fit one word (or every row ties).
bool plan_packed(const std::vector<Key>& keys, int64_t n, Packed& packed) {
  packed = Packed{};
  int used = 0;
  for (int k = static_cast<int>(keys.size()) - 1; k >= 0; k--) {
    const Column& c = *keys[k].column;
    if (c.kind == KIND_STRING || c.kind == KIND_DECIMAL128) return false;
    const std::vector<unsigned long long> stats = statistics(c, n);
    const uint64_t values = stats[0] & stats[2];
    const int low = values == 0 ? 0 : __builtin_ctzll(values);
    const int width = values == 0 ? 0 : 64 - low - __builtin_clzll(values);
    bool null_flag = stats[5] > 0 && static_cast<int64_t>(stats[5]) < n;
    if (null_flag && k == 0 && used + width == 64) {
      null_flag = false;
      packed.null_pass = &keys[k];
    }
    const int bits = width + (null_flag ? 1 : 0);
    if (bits == 0) continue;
    if (used + bits > 64 || packed.keys.count == sparkwarp::sort_keys::MAX_PACKED_FIELDS) return false;
    packed.keys.fields[packed.keys.count++] = {c.data(), c.validity.data(), c.kind, low, width, used,
                                               !keys[k].ascending, null_flag, keys[k].nulls_first, 0};
    packed.varying |= (values >> low) << used;
    if (null_flag) packed.varying |= 1ull << (used + width);
    used += bits;
  }
  return packed.varying != 0;
}

// A pass of the pair passes: bits [shift, shift + bits) of the word.
struct Digit {
  int32_t shift;
  int32_t bits;
};

// PackedKeys.passes: from the lowest varying bit not covered yet, the varying bits of the 8 from there.
std::vector<Digit> digits_of(uint64_t varying) {
  std::vector<Digit> digits;
  for (uint64_t rest = varying; rest != 0;) {
    const int32_t shift = __builtin_ctzll(rest);
    const uint64_t digit = rest & (0xffull << shift);
    digits.push_back({shift, 64 - __builtin_clzll(digit) - shift});
    rest &= ~digit;
  }
  return digits;
}

// The pair passes as CudaSortPrimitives launches them: one histogram kernel for every pass (over the words packed
// from keys where words is null), then per pass a zeroed look-back and tile counter and a block a tile of
// block_grouping::CHUNK rows. The emulation runs the blocks in turn, in tile order, so a look-back finds the tile
// before published (look_back_waits checks the waiting on many). The first pass reads keys or words (those the
// histograms packed, as DeviceSort has it with three passes or more), every pass
// writes the other of two pair buffers (the last only the ids); each pass is checked to leave its digits in order
// and the histograms to count every row. Returns the row ids.
std::vector<int32_t> pair_passes(const sparkwarp::sort_keys::PackedKeys* keys, const uint64_t* words, int64_t n,
                                 const std::vector<Digit>& digits, const std::string& what) {
  onesweep::DigitPlan plan{};
  plan.passes = static_cast<int32_t>(digits.size());
  for (size_t p = 0; p < digits.size(); p++) {
    plan.shift[p] = digits[p].shift;
    plan.bits[p] = digits[p].bits;
  }
  const int64_t tiles = (n + block_grouping::CHUNK - 1) / block_grouping::CHUNK;
  std::vector<int32_t> counts(block_grouping::BUCKETS * digits.size(), 0);
  const int threads = block_grouping::THREADS;
  // as DeviceSort: with three passes or more the histograms write out the words they pack, and the first pass reads
  // those instead of the key columns
  const bool pack_words = keys != nullptr && digits.size() >= 3;
  std::vector<uint64_t> packed(pack_words ? n + 1 : 0);
  if (pack_words) packed[n] = 0x5a5a;
  // two blocks where there are two chunks, so that a block loops over chunks
  launch_blocks_in_turn(tiles < 2 ? 1 : 2, threads, [&] {
    if (keys != nullptr) sw_sort_digit_counts_keys(*keys, n, plan, counts.data(), pack_words ? packed.data() : nullptr);
    else sw_sort_digit_counts(words, n, plan, counts.data());
  });
  if (pack_words) {
    expect(packed[n] == 0x5a5a, what + ": no word packed past the rows", packed[n], 0x5a5a);
    words = packed.data();
  }
  std::vector<uint64_t> out_words[2] = {std::vector<uint64_t>(n + 1), std::vector<uint64_t>(n + 1)};
  std::vector<int32_t> ids[2] = {std::vector<int32_t>(n + 1, -7), std::vector<int32_t>(n + 1, -7)};
  const uint64_t* words_in = words;
  const int32_t* ids_in = nullptr;
  for (size_t pass = 0; pass < digits.size(); pass++) {
    const auto [shift, bits] = digits[pass];
    const int32_t buckets = 1 << bits;
    const int32_t* pass_counts = counts.data() + block_grouping::BUCKETS * pass;
    int64_t counted = 0;
    for (int32_t d = 0; d < block_grouping::BUCKETS; d++) counted += pass_counts[d];
    expect(counted == n, what + ": rows counted for the pass at bit " + std::to_string(shift), counted, n);
    const int out = static_cast<int>(pass % 2);
    uint64_t* words_out = pass + 1 == digits.size() ? nullptr : out_words[out].data();
    int32_t* ids_out = ids[out].data();
    out_words[out][n] = 0x5a5a;
    std::vector<uint64_t> lookback(tiles * block_grouping::BUCKETS, 0);
    uint32_t next_tile = 0;
    launch_blocks_in_turn(static_cast<int>(tiles), threads, [&] {
      if (pass == 0 && words == nullptr) {
        sw_sort_pairs_keys(*keys, shift, n, buckets, pass_counts, lookback.data(), &next_tile, ids_in, words_out,
                           ids_out);
      } else {
        sw_sort_pairs(words_in, shift, n, buckets, pass_counts, lookback.data(), &next_tile, ids_in, words_out,
                      ids_out);
      }
    });
    expect(ids_out[n] == -7 && out_words[out][n] == 0x5a5a, what + ": nothing written past the rows", ids_out[n], 0);
    for (int64_t j = 1; j < n && words_out != nullptr; j++) {
      const uint64_t before = (words_out[j - 1] >> shift) & (buckets - 1);
      const uint64_t here = (words_out[j] >> shift) & (buckets - 1);
      expect(before <= here, what + ": digits in order after a pass at bit " + std::to_string(shift), before, here);
    }
    words_in = words_out;
    ids_in = ids_out;
  }
  return std::vector<int32_t>(ids_in, ids_in + n);
}

// The order DeviceSort's pair passes compute, then its null pass if the plan has one.
std::vector<int32_t> packed_order(const Packed& packed, int64_t n) {
  std::vector<int32_t> order = pair_passes(&packed.keys, nullptr, n, digits_of(packed.varying), "packed");
  if (packed.null_pass != nullptr) {
    const Key& key = *packed.null_pass;
    std::vector<int32_t> digits(n), out(n);
    launch(2, 64, [&] {
      sw_sort_null_digits(key.column->validity.data(), order.data(), n, key.nulls_first, digits.data());
    });
    group(digits, n, 2, order.data(), 64, out);
    order.swap(out);
  }
  return order;
}

// The pair passes over words by the digits of `varying`, against std::stable_sort of the row ids by those bits.
void pairs_sort_stably(const std::string& what, const std::vector<uint64_t>& words, uint64_t varying) {
  const int64_t n = static_cast<int64_t>(words.size());
  std::vector<int32_t> expected(n);
  for (int64_t i = 0; i < n; i++) expected[i] = static_cast<int32_t>(i);
  std::stable_sort(expected.begin(), expected.end(),
                   [&](int32_t a, int32_t b) { return (words[a] & varying) < (words[b] & varying); });
  const std::vector<int32_t> actual = pair_passes(nullptr, words.data(), n, digits_of(varying), what);
  for (int64_t j = 0; j < n; j++) {
    if (actual[j] != expected[j]) {
      expect(false, what + ": row at " + std::to_string(j), actual[j], expected[j]);
      return;
    }
  }
}

// onesweep::look_back of the last of many tiles while another thread publishes its predecessors, last first and a
// little late each: it must wait on each not-ready word, add aggregates, and stop at the nearest inclusive prefix.
void look_back_waits(std::mt19937_64& rnd) {
  const int64_t tiles = 40;
  const int digit = 77;
  for (int64_t prefix_at : {int64_t{0}, int64_t{25}}) {
    std::vector<uint64_t> lookback(tiles * block_grouping::BUCKETS, onesweep::FLAG_NOT_READY);
    std::vector<uint64_t> counts(tiles);
    for (uint64_t& c : counts) c = rnd() % 5000;
    const uint64_t start = 123456789;  // tile 0's prefix starts after the digits below
    int64_t expected = 0;
    for (int64_t t = tiles - 2; t >= prefix_at; t--) expected += static_cast<int64_t>(counts[t]);
    // the inclusive prefix of tile prefix_at: any value, as long as the look-back stops there
    if (prefix_at == 0) expected += static_cast<int64_t>(start);
    int64_t got = -1;
    std::thread reader([&] { got = onesweep::look_back(lookback.data(), tiles - 1, digit); });
    for (int64_t t = tiles - 2; t >= 0; t--) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      const bool prefix = t == prefix_at;
      const uint64_t value = prefix && t == 0 ? start + counts[t] : counts[t];
      onesweep::publish(&lookback[t * block_grouping::BUCKETS + digit],
                        (prefix || t == 0 ? onesweep::FLAG_PREFIX : onesweep::FLAG_AGGREGATE) | value);
    }
    reader.join();
    expect(got == expected, "look-back over " + std::to_string(tiles - 1 - prefix_at) + " tiles", got, expected);
  }
}

// The row ids in Spark's order by `keys`, by std::stable_sort.
std::vector<int32_t> spark_order(const std::vector<Key>& keys, int64_t n) {
  std::vector<int32_t> expected(n);
  for (int64_t i = 0; i < n; i++) expected[i] = static_cast<int32_t>(i);
  std::stable_sort(expected.begin(), expected.end(), [&](int32_t a, int32_t b) { return less_than(keys, a, b); });
  return expected;
}

void expect_order(const std::string& what, const std::vector<int32_t>& actual, const std::vector<int32_t>& expected) {
  expect(actual.size() == expected.size(), what + ": rows", actual.size(), expected.size());
  for (size_t j = 0; j < actual.size() && j < expected.size(); j++) {
    if (actual[j] != expected[j]) {
      expect(false, what + ": row at " + std::to_string(j), actual[j], expected[j]);
      return;
    }
  }
}

// Sorts by `keys` through the digit passes, with tiles of tile_rows where the grouping takes warps.
void sorts_like_spark(const std::string& what, const std::vector<Key>& keys, int64_t n, int32_t tile_rows) {
  expect_order(what, device_order(keys, n, tile_rows), spark_order(keys, n));
}

// Sorts by `keys` through the pair passes: the keys must fit one word, unless every row ties.
void packs_like_spark(const std::string& what, const std::vector<Key>& keys, int64_t n) {
  const std::vector<int32_t> expected = spark_order(keys, n);
  Packed plan;
  if (plan_packed(keys, n, plan)) {
    expect_order(what + ", packed", packed_order(plan, n), expected);
  } else {
    // only where every row ties may the keys not pack
    expect(std::adjacent_find(expected.begin(), expected.end(), [&](int32_t a, int32_t b) {
             return less_than(keys, a, b);
           }) == expected.end(), what + ": packs", 0, 0);
  }
}

// sw_sort_ranks inverts a random permutation; sw_sort_rows_at maps valid in-range positions through it, -1 elsewhere
void ranks_and_rows_at(int64_t n, std::mt19937_64& rnd) {
  std::vector<int32_t> order(n);
  for (int64_t i = 0; i < n; i++) order[i] = static_cast<int32_t>(i);
  std::shuffle(order.begin(), order.end(), rnd);
  std::vector<int32_t> ranks(n, -7);
  launch(2, 64, [&] { sw_sort_ranks(order.data(), n, ranks.data()); });
  for (int64_t j = 0; j < n; j++) {
    expect(ranks[order[j]] == j, "rank of row " + std::to_string(order[j]), ranks[order[j]], j);
  }
  const int64_t count = n + 5;
  std::vector<int32_t> positions(count);
  std::vector<uint32_t> validity((count + 31) / 32, 0);
  for (int64_t g = 0; g < count; g++) {
    positions[g] = static_cast<int32_t>(rnd() % (n + 3)) - 1;  // some below 0 and some past the end
    if (rnd() % 4 != 0) validity[g >> 5] |= 1u << (g & 31);
  }
  std::vector<int32_t> rows(count, -7);
  launch(2, 64, [&] { sw_sort_rows_at(positions.data(), validity.data(), count, order.data(), n, rows.data()); });
  for (int64_t g = 0; g < count; g++) {
    const bool valid = (validity[g >> 5] >> (g & 31)) & 1u;
    const int32_t p = positions[g];
    const int32_t want = valid && p >= 0 && p < n ? order[p] : -1;
    expect(rows[g] == want, "row at position " + std::to_string(g), rows[g], want);
  }
}

}  // namespace

int main() {
  std::mt19937_64 rnd(2026);
  for (int64_t n : {0, 1, 40, 700}) {
    const double nulls = n == 40 ? 1.0 : 0.2;  // 40 rows: only nulls, every pass left out
    const std::vector<Column> columns = {ints(n, nulls, rnd), doubles(n, nulls, rnd), strings(n, nulls, 5, rnd),
                                         decimals(n, nulls, rnd), booleans(n, nulls, rnd)};
    const char* names[] = {"ints", "doubles", "strings", "decimal128", "booleans"};
    for (size_t c = 0; c < columns.size(); c++) {
      for (bool ascending : {true, false}) {
        for (bool nulls_first : {true, false}) {
          const std::string what = std::to_string(n) + " " + names[c] + (ascending ? " asc" : " desc") +
                                   (nulls_first ? " nulls first" : " nulls last");
          sorts_like_spark(what, {{&columns[c], ascending, nulls_first}}, n, 64);
        }
      }
    }
  }
  // ties broken by a second key; no nulls in the first, so its null pass is left out
  for (int64_t n : {33, 2000}) {
    const Column few = strings(n, 0.0, 2, rnd);
    const Column second = doubles(n, 0.3, rnd);
    const Column third = ints(n, 0.1, rnd);
    for (int32_t tile_rows : {32, 96, 1024}) {
      sorts_like_spark(std::to_string(n) + " strings desc, doubles asc", {{&few, false, true}, {&second, true, false}},
                       n, tile_rows);
      sorts_like_spark(std::to_string(n) + " doubles desc, ints desc, strings asc",
                       {{&second, false, false}, {&third, false, true}, {&few, true, false}}, n, tile_rows);
    }
  }
  // the pair passes (and the digit passes beside them) over every fixed-width kind: no nulls, some, only nulls
  const int32_t chunk = block_grouping::CHUNK;
  for (double nulls : {0.0, 0.3, 1.0}) {
    const int64_t n = 300;
    const std::vector<Column> columns = {
        booleans(n, nulls, rnd), bytes(n, nulls, rnd), shorts(n, nulls, rnd), ints(n, nulls, rnd),
        narrow_ints(KIND_DATE, n, nulls, rnd), floats(n, nulls, rnd), doubles(n, nulls, rnd),
        longs(KIND_LONG, n, nulls, false, rnd), longs(KIND_TIMESTAMP, n, nulls, true, rnd),
        longs(KIND_DECIMAL, n, nulls, false, rnd)};
    const char* names[] = {"booleans", "bytes", "shorts", "ints", "narrow dates", "floats", "doubles", "longs",
                           "narrow timestamps", "decimals"};
    for (size_t c = 0; c < columns.size(); c++) {
      for (bool ascending : {true, false}) {
        // each kind in both null placements of each direction, across the null fractions
        const bool nulls_first = (ascending + c + static_cast<int>(nulls * 10)) % 2 == 0;
        const std::string what = std::to_string(nulls) + " nulls, " + names[c] + (ascending ? " asc" : " desc") +
                                 (nulls_first ? " nulls first" : " nulls last");
        packs_like_spark(what, {{&columns[c], ascending, nulls_first}}, n);
      }
    }
  }
  {
    // two whole tiles and a partial one; the full-range longs with nulls take the last null pass, the ints a null
    // flag at bit 32
    const int64_t n = 2 * chunk + chunk / 2 + 3;
    const Column wide = longs(KIND_LONG, n, 0.2, false, rnd), narrow = longs(KIND_LONG, n, 0.0, true, rnd);
    const Column some = ints(n, 0.1, rnd), reals = doubles(n, 0.0, rnd);
    packs_like_spark("longs desc nulls last, three tiles", {{&wide, false, false}}, n);
    packs_like_spark("ints nulls first, three tiles", {{&some, true, true}}, n);
    packs_like_spark("narrow longs, three tiles", {{&narrow, true, true}}, n);
    packs_like_spark("doubles desc, three tiles", {{&reals, false, true}}, n);
  }
  {
    // several keys in one word, ties broken by the later ones; and key lists that do not fit one
    const int64_t n = 500;
    const Column dates = narrow_ints(KIND_DATE, n, 0.2, rnd), small = shorts(n, 0.0, rnd);
    const Column flags = booleans(n, 0.3, rnd), tiny = bytes(n, 0.2, rnd);
    const Column stamps = longs(KIND_TIMESTAMP, n, 0.0, true, rnd), reals = floats(n, 0.1, rnd);
    const Column wide = longs(KIND_LONG, n, 0.2, false, rnd), text = strings(n, 0.0, 3, rnd);
    const Column big = decimals(n, 0.0, rnd);
    packs_like_spark("dates desc nulls last, shorts asc, booleans desc nulls first",
                     {{&dates, false, false}, {&small, true, true}, {&flags, false, true}}, n);
    packs_like_spark("bytes asc nulls last, narrow timestamps desc, floats asc nulls first",
                     {{&tiny, true, false}, {&stamps, false, true}, {&reals, true, true}}, n);
    packs_like_spark("booleans, bytes", {{&flags, true, true}, {&tiny, false, false}}, n);
    sorts_like_spark("longs with nulls, then booleans (no pack)", {{&wide, true, false}, {&flags, true, true}}, n, 64);
    Packed plan;
    expect(plan_packed({{&wide, true, true}}, n, plan) && plan.null_pass != nullptr, "64 bits and nulls", 0, 0);
    expect(!plan_packed({{&wide, true, false}, {&flags, true, true}}, n, plan), "65 bits", 0, 0);
    expect(!plan_packed({{&small, true, false}, {&text, true, true}}, n, plan), "a string", 0, 0);
    expect(!plan_packed({{&big, true, false}}, n, plan), "a 128-bit decimal", 0, 0);
    expect(!plan_packed(std::vector<Key>(9, Key{&flags, true, true}), n, plan), "nine keys", 0, 0);
  }
  // the pair passes over words: no rows, one, a tile less one row, one tile, a tile and a row, many tiles with a
  // partial last one; every digit of the word or a few; words all equal; words that differ only in a middle digit
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{chunk - 1}, int64_t{chunk}, int64_t{chunk + 1},
                    int64_t{9 * chunk + 77}}) {
    std::vector<uint64_t> words(n), same(n, 0x0123456789abcdefull), middle(n), skewed(n);
    const uint64_t base = rnd();
    for (int64_t i = 0; i < n; i++) {
      words[i] = rnd();
      middle[i] = (base & ~(0xffull << 24)) | (rnd() % 256) << 24;
      skewed[i] = rnd() % 8 == 0 ? rnd() : base;  // most rows in one bucket of every digit
    }
    const std::string rows = std::to_string(n) + " rows";
    // every digit of the word up to a few tiles: the emulation runs a block at a time
    if (n <= 2 * chunk) pairs_sort_stably(rows + " of random words, 8 passes", words, ~0ull);
    pairs_sort_stably(rows + " of random words, digits of 3, 8 and 1 bits", words,
                      0x7ull << 5 | 0xffull << 20 | 1ull << 63);
    pairs_sort_stably(rows + " of equal words, a pass over a constant digit", same, 0xffull << 8);
    pairs_sort_stably(rows + " differing in bits [24, 32)", middle, 0xffull << 24);
    pairs_sort_stably(rows + " mostly of one word", skewed, 0xffffull << 40);
  }
  look_back_waits(rnd);
  for (int64_t n : {0, 1, 33, 5000}) ranks_and_rows_at(n, rnd);
  if (failures) return 1;
  printf("ok\n");
}
