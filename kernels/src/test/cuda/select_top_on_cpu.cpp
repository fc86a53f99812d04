// select_top.cu on the CPU: prefixes of every kind over values listed in Spark's order (extremes, NaN of other bits,
// -0.0, strings with prefixes, NUL and high bytes past the 8 bytes kept, 128-bit decimals), in both directions and
// null placements, never decreasing along that order and equal for equal values; the byte histograms of several
// blocks against a count, at the top byte and below a pinned one; and the candidates' mask compacted by select.cu's
// kernels against a filter, for a partial last word. Prints "ok" or the disagreements (exit 1). Run by
// SelectTopKernelsOnCpuTest.
#include "warp_emulation.h"

struct ulonglong2 {  // the one CUDA vector type select.cu's gathers use beyond the emulation's
  unsigned long long x, y;
};

#include "select.cu"
#include "select_top.cu"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

int32_t sw_top_shared[256];  // the histogram's `extern __shared__` counts: its blocks take them in turn

namespace {

using namespace sparkwarp::expr;

int failures = 0;

void expect(bool ok, const std::string& what, long long a, long long b) {
  if (!ok && failures++ < 10) fprintf(stderr, "FAIL %s (%lld, %lld)\n", what.c_str(), a, b);
}

// Values of one kind in Spark's ascending order, a null after them: bytes as the column holds them (fixed-width
// values in 16-byte slots, read at the kind's width; strings as bytes and offsets), and which neighbours are equal.
struct Ordered {
  int32_t kind;
  int64_t n = 0;
  std::vector<uint8_t> data;
  std::vector<int32_t> offsets{0};
  std::vector<bool> equal_to_previous;

  template <typename T>
  void add(T v, bool equal = false) {
    data.resize((n + 1) * sizeof(T));
    memcpy(data.data() + n * sizeof(T), &v, sizeof(T));
    equal_to_previous.push_back(equal);
    n++;
  }
  void add_bytes(const std::string& s, bool equal = false) {
    data.insert(data.end(), s.begin(), s.end());
    offsets.push_back(static_cast<int32_t>(data.size()));
    equal_to_previous.push_back(equal);
    n++;
  }
};

// The prefixes of the values and one null (the last row) under one direction and null placement: along the order
// they never decrease (ascending) or never increase (descending), equal values have equal prefixes, and the null's
// is below or above every value's as nulls go first or last.
void prefixes_follow_the_order(const Ordered& o, const char* what) {
  const int64_t n = o.n + 1;
  std::vector<uint8_t> data(o.data);
  data.resize(data.size() + 16, 0);
  std::vector<int32_t> offsets(o.offsets);
  offsets.push_back(offsets.back());
  std::vector<uint32_t> validity((n + 31) / 32, 0xffffffffu);
  validity[o.n >> 5] &= ~(1u << (o.n & 31));
  const bool bytes = o.kind == KIND_STRING || o.kind == KIND_BINARY;
  for (int descending = 0; descending < 2; descending++) {
    for (int nulls_first = 0; nulls_first < 2; nulls_first++) {
      std::vector<uint64_t> p(n);
      launch(1, 64, [&] {
        sw_top_prefixes(o.kind, data.data(), validity.data(), bytes ? offsets.data() : nullptr, n, descending,
                        nulls_first, p.data());
      });
      const std::string how = std::string(what) + (descending ? " desc" : " asc") + (nulls_first ? " nf" : " nl");
      for (int64_t i = 1; i < o.n; i++) {
        const bool ordered = descending ? p[i - 1] >= p[i] : p[i - 1] <= p[i];
        expect(ordered, how + " order", i, 0);
        if (o.equal_to_previous[i]) expect(p[i - 1] == p[i], how + " equal", i, 0);
      }
      for (int64_t i = 0; i < o.n; i++) {
        expect(nulls_first ? p[o.n] < p[i] : p[o.n] > p[i], how + " null", i, 0);
      }
    }
  }
}

void prefixes_of_every_kind() {
  Ordered booleans{KIND_BOOLEAN};
  booleans.data = {0b1100};  // false false true true (bits, one byte)
  booleans.n = 4;
  booleans.equal_to_previous = {false, true, false, true};
  prefixes_follow_the_order(booleans, "boolean");
  Ordered bytes{KIND_BYTE};
  for (int8_t v : std::initializer_list<int8_t>{INT8_MIN, -1, 0, 5, INT8_MAX}) bytes.add(v);
  prefixes_follow_the_order(bytes, "byte");
  Ordered shorts{KIND_SHORT};
  for (int16_t v : std::initializer_list<int16_t>{INT16_MIN, -300, 0, 1, INT16_MAX}) shorts.add(v);
  prefixes_follow_the_order(shorts, "short");
  Ordered ints{KIND_INT};
  for (int32_t v : {INT32_MIN, -7, -1, 0, 1, 1 << 20, INT32_MAX}) ints.add(v);
  ints.add(INT32_MAX, true);
  prefixes_follow_the_order(ints, "int");
  Ordered longs{KIND_LONG};
  for (int64_t v : {INT64_MIN, int64_t{-1} << 40, int64_t{-2}, int64_t{-1}, int64_t{0}, int64_t{3}, INT64_MAX}) {
    longs.add(v);
  }
  prefixes_follow_the_order(longs, "long");
  Ordered floats{KIND_FLOAT};
  const float inf = std::numeric_limits<float>::infinity();
  floats.add(-inf);
  floats.add(-1.5f);
  floats.add(-0.0f);
  floats.add(0.0f, true);
  floats.add(1e-30f);
  floats.add(inf);
  floats.add(std::nanf(""));
  floats.add(std::nanf("0x1"), true);
  prefixes_follow_the_order(floats, "float");
  Ordered doubles{KIND_DOUBLE};
  const double dinf = std::numeric_limits<double>::infinity();
  doubles.add(-dinf);
  doubles.add(-1e300);
  doubles.add(-0.0);
  doubles.add(0.0, true);
  doubles.add(4.9e-324);
  doubles.add(dinf);
  doubles.add(-std::nan(""));
  doubles.add(std::nan("0x5"), true);
  prefixes_follow_the_order(doubles, "double");
  Ordered wide{KIND_DECIMAL128};
  for (__int128 v : {-(static_cast<__int128>(1) << 100), static_cast<__int128>(-1), static_cast<__int128>(0),
                     static_cast<__int128>(1), static_cast<__int128>(1) << 64, static_cast<__int128>(1) << 120}) {
    wide.add(v);
  }
  prefixes_follow_the_order(wide, "decimal128");
  Ordered strings{KIND_STRING};
  strings.add_bytes("");
  strings.add_bytes(std::string(1, '\0'));
  strings.add_bytes("a");
  strings.add_bytes(std::string("a\0", 2));
  strings.add_bytes("abcdefgh");
  strings.add_bytes("abcdefghij");  // beyond the 8 bytes kept: equal prefixes, which is allowed
  strings.add_bytes("abcdefghz");
  strings.add_bytes("b");
  strings.add_bytes("\xc3\xa9");
  strings.add_bytes("\xff\xff");
  prefixes_follow_the_order(strings, "string");
  strings.kind = KIND_BINARY;
  prefixes_follow_the_order(strings, "binary");
}

// The histograms of 3 blocks in turn against a count: the top byte of all rows, then the next byte of the rows whose
// top byte is pinned.
void histograms_count_the_pinned_rows(std::mt19937_64& rnd) {
  const int64_t n = 5003;
  std::vector<uint64_t> p(n);
  for (auto& v : p) v = (static_cast<uint64_t>(rnd() % 4) << 56) | (rnd() >> 8);  // a few top bytes: many pinned
  for (const int32_t shift : {56, 48, 0}) {
    const uint64_t pinned = p[17] & ~((shift == 56 ? ~0ull : (1ull << (shift + 8)) - 1));
    std::vector<int32_t> counts(256, 0), expected(256, 0);
    launch_blocks_in_turn(3, 64, [&] { sw_top_histogram(p.data(), n, shift, pinned, counts.data()); });
    for (const uint64_t v : p) {
      if (shift == 56 || (v >> (shift + 8)) == (pinned >> (shift + 8))) expected[(v >> shift) & 0xff]++;
    }
    for (int b = 0; b < 256; b++) expect(counts[b] == expected[b], "histogram at " + std::to_string(shift), b, counts[b]);
  }
}

// The rows at or below a cutoff, as sw_top_candidate_mask marks them and select.cu compacts them (the scan between
// them done here, as CudaScan does it on the device), against a filter of the rows.
void candidates_are_the_rows_at_or_below_the_cutoff(std::mt19937_64& rnd) {
  const int64_t n = 1000 + 7;
  const int64_t words = (n + 31) / 32;
  std::vector<uint64_t> p(n);
  for (auto& v : p) v = rnd();
  p[3] = ~0ull;
  for (const uint64_t cutoff : std::initializer_list<uint64_t>{0, p[5], 1ull << 63, ~0ull}) {
    std::vector<uint32_t> mask(words, 0xdeadbeefu);
    launch(2, 64, [&] { sw_top_candidate_mask(p.data(), n, cutoff, mask.data()); });
    std::vector<int32_t> offsets(words + 1, 0);
    launch(1, 64, [&] { sw_select_counts(mask.data(), mask.data(), words, offsets.data()); });
    int32_t sum = 0;
    for (int64_t w = 0; w <= words; w++) {
      const int32_t c = w < words ? offsets[w] : 0;
      offsets[w] = sum;
      sum += c;
    }
    std::vector<int32_t> rows(n + 1, -7), expected;
    launch(2, 64, [&] { sw_select_rows(mask.data(), mask.data(), n, offsets.data(), rows.data()); });
    for (int64_t i = 0; i < n; i++) {
      if (p[i] <= cutoff) expected.push_back(static_cast<int32_t>(i));
    }
    expect(offsets[words] == static_cast<int32_t>(expected.size()), "candidate count", offsets[words], expected.size());
    for (size_t j = 0; j < expected.size(); j++) expect(rows[j] == expected[j], "candidate", j, rows[j]);
    expect(rows[expected.size()] == -7, "past the candidates", expected.size(), rows[expected.size()]);
  }
}

}  // namespace

int main() {
  prefixes_of_every_kind();
  std::mt19937_64 rnd(2026);
  histograms_count_the_pinned_rows(rnd);
  candidates_are_the_rows_at_or_below_the_cutoff(rnd);
  if (failures) return 1;
  printf("ok\n");
}
