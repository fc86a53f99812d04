// partition.cu on the CPU: Spark's Murmur3 of every key kind against known answers of Spark 4.1's Murmur3_x86_32
// (the values SparkMurmur3Test checks too), partition ids as pmod, round-robin ids past the int range, and
// grouping.cu's grouping by both paths (block and warp per tile; count, scan, starts, scatter of row indices or of
// carried values) against a stable counting sort, for several tile lengths and partition counts, partial chunks and
// tiles, skewed, uniform and single ids. Prints "ok" or the disagreements (exit 1). Run by PartitionKernelsOnCpuTest.
#include "warp_emulation.h"
#include "grouping.cu"
#include "partition.cu"
#include "grouping_on_cpu.h"

#include <random>
#include <vector>

static int failures = 0;

static void expect(bool ok, const char* what, long long a, long long b) {
  if (!ok && failures++ < 10) fprintf(stderr, "FAIL %s (%lld, %lld)\n", what, a, b);
}

// One column of n values of `kind`, all valid: the hash kernel's arguments.
static int32_t hash_one(int32_t kind, const void* data, const int32_t* offsets, int64_t n, int64_t row) {
  std::vector<uint32_t> validity((n + 31) / 32 + 1, 0xffffffffu);
  std::vector<uint32_t> h(n);
  launch(1, 32, [&] {
    sw_partition_hash(kind, static_cast<const uint8_t*>(data), validity.data(), offsets, n, 1, sparkwarp::spark_murmur3::SEED,
                      h.data());
  });
  return static_cast<int32_t>(h[row]);
}

static void known_answers() {
  using namespace sparkwarp::expr;
  const int32_t ints[] = {1, INT32_MIN};
  expect(hash_one(KIND_INT, ints, nullptr, 2, 0) == -559580957, "hashInt(1)", hash_one(KIND_INT, ints, nullptr, 2, 0), 0);
  expect(hash_one(KIND_DATE, ints, nullptr, 2, 1) == 723455942, "hashInt(MIN)", 0, 0);
  const int64_t longs[] = {-1};
  expect(hash_one(KIND_LONG, longs, nullptr, 1, 0) == -939490007, "hashLong(-1)", 0, 0);
  const char* strings[] = {"", "a", "abcd", "abcde", "日本語", "😀x"};
  const int32_t expected_strings[] = {142593372, 1485273170, -396302900, 814637928, -1143049834, -1814635023};
  std::vector<int32_t> offsets = {0};
  std::string bytes;
  for (const char* s : strings) {
    bytes += s;
    offsets.push_back(static_cast<int32_t>(bytes.size()));
  }
  for (int i = 0; i < 6; i++) {
    const int32_t h = hash_one(KIND_STRING, bytes.data(), offsets.data(), 6, i);
    expect(h == expected_strings[i], "hashUnsafeBytes", i, h);
  }
  // 0, -1, 255, -129, 12345678901234567890123, -(10^38 - 1), 2^127 - 1 as little-endian 128-bit words
  const __int128 ten19 = static_cast<__int128>(10000000000000000000ull);
  const __int128 wide[] = {0, -1, 255, -129, static_cast<__int128>(1234) * ten19 + 5678901234567890123ll,
                           -(ten19 * ten19 - 1), static_cast<__int128>((~static_cast<unsigned __int128>(0)) >> 1)};
  const int32_t expected_wide[] = {-783713497, 1398487324, 1246198977, -771458971, -434902821, 1400911110, -1255691256};
  for (int i = 0; i < 7; i++) {
    const int32_t h = hash_one(KIND_DECIMAL128, wide, nullptr, 7, i);
    expect(h == expected_wide[i], "wide decimal", i, h);
  }
  // -0.0 as 0.0, a NaN of other bits as Java's canonical one
  const float floats[] = {-0.0f, 0.0f, __builtin_nanf("0x1"), __builtin_nanf("")};
  expect(hash_one(KIND_FLOAT, floats, nullptr, 4, 0) == hash_one(KIND_FLOAT, floats, nullptr, 4, 1), "-0.0f", 0, 0);
  expect(hash_one(KIND_FLOAT, floats, nullptr, 4, 2) == hash_one(KIND_FLOAT, floats, nullptr, 4, 3), "NaN", 0, 0);
}

// Two key columns, the first with nulls: a null leaves the running hash, and pmod lands in [0, n).
static void ids_fold_keys_and_nulls() {
  const int64_t n = 100;
  std::vector<int64_t> a(n), b(n);
  std::vector<uint32_t> a_valid((n + 31) / 32 + 1, 0), b_valid((n + 31) / 32 + 1, 0xffffffffu);
  std::mt19937_64 rnd(7);
  for (int64_t i = 0; i < n; i++) {
    a[i] = static_cast<int64_t>(rnd());
    b[i] = static_cast<int64_t>(rnd());
    if (i % 3 != 0) a_valid[i >> 5] |= 1u << (i & 31);
  }
  std::vector<uint32_t> h(n), only_b(n);
  launch(1, 64, [&] {
    sw_partition_hash(sparkwarp::expr::KIND_LONG, reinterpret_cast<const uint8_t*>(a.data()), a_valid.data(), nullptr,
                      n, 1, sparkwarp::spark_murmur3::SEED, h.data());
  });
  launch(1, 64, [&] {
    sw_partition_hash(sparkwarp::expr::KIND_LONG, reinterpret_cast<const uint8_t*>(b.data()), b_valid.data(), nullptr,
                      n, 0, sparkwarp::spark_murmur3::SEED, h.data());
  });
  launch(1, 64, [&] {
    sw_partition_hash(sparkwarp::expr::KIND_LONG, reinterpret_cast<const uint8_t*>(b.data()), b_valid.data(), nullptr,
                      n, 1, sparkwarp::spark_murmur3::SEED, only_b.data());
  });
  for (int64_t i = 0; i < n; i += 3) expect(h[i] == only_b[i], "a null key keeps the seed", i, h[i]);
  std::vector<int32_t> ids(h.begin(), h.end());
  launch(1, 64, [&] { sw_partition_pmod(ids.data(), n, 7); });
  for (int64_t i = 0; i < n; i++) {
    const int32_t r = static_cast<int32_t>(h[i]) % 7;
    expect(ids[i] == (r < 0 ? r + 7 : r), "pmod", i, ids[i]);
  }
}

// Round-robin ids: consecutive positions from `first`, wrapping as a Java int, modulo n and never negative.
static void round_robin_ids_wrap_like_java_ints() {
  const int64_t n = 1000;
  for (const int32_t first : {0, 5, INT32_MAX - 400}) {
    for (const int32_t partitions : {1, 3, 200}) {
      std::vector<int32_t> ids(n, -1);
      launch(2, 64, [&] { sw_partition_round_robin(ids.data(), n, first, partitions); });
      int64_t position = first;
      for (int64_t i = 0; i < n; i++, position++) {
        const int32_t wrapped = static_cast<int32_t>(position > INT32_MAX ? position - (int64_t{1} << 32) : position);
        const int32_t r = wrapped % partitions;
        expect(ids[i] == (r < 0 ? r + partitions : r), "round-robin id", i, ids[i]);
      }
    }
  }
}

// How the grouping tests draw their ids.
enum class Ids { SKEWED, UNIFORM, ONE };

// The grouping kernels with the host's orchestration (grouping_on_cpu.h) against a stable counting sort: row indices
// or, with_values, a value carried for each row; ids half 0 (a heavy partition among light ones), uniform, or all
// one id.
static void grouping_is_a_stable_counting_sort(int64_t n, int32_t partitions, bool block_path, int32_t tile_rows,
                                               bool with_values, Ids kind, std::mt19937_64& rnd) {
  std::vector<int32_t> ids(n), values(n);
  const int32_t one = static_cast<int32_t>(rnd() % partitions);
  for (auto& id : ids) {
    const bool zero = kind == Ids::SKEWED && rnd() % 2 == 0;
    id = kind == Ids::ONE ? one : zero ? 0 : static_cast<int32_t>(rnd() % partitions);
  }
  for (auto& v : values) v = static_cast<int32_t>(rnd() % 1000000);
  std::vector<int32_t> starts(partitions, -7), order(n + 1, -7);  // one past the end: nothing may land there
  const int64_t counted = group_on_cpu(ids.data(), n, partitions, with_values ? values.data() : nullptr, block_path,
                                       tile_rows, order.data(), starts.data());
  expect(counted == n, "counted rows", counted, n);
  std::vector<int32_t> next(partitions + 1, 0);
  for (int32_t id : ids) next[id + 1]++;
  for (int32_t p = 0; p < partitions; p++) next[p + 1] += next[p];
  for (int32_t p = 0; p < partitions; p++) expect(starts[p] == next[p], "start", p, starts[p]);
  for (int64_t i = 0; i < n; i++) {
    const int32_t at = next[ids[i]]++;
    expect(order[at] == (with_values ? values[i] : i), "order", at, order[at]);
  }
  expect(order[n] == -7, "past the end", n, order[n]);
}

int main() {
  known_answers();
  ids_fold_keys_and_nulls();
  round_robin_ids_wrap_like_java_ints();
  std::mt19937_64 rnd(2026);
  for (bool with_values : {false, true}) {
    // the warp path (any bucket count)
    grouping_is_a_stable_counting_sort(0, 3, false, 32, with_values, Ids::SKEWED, rnd);
    grouping_is_a_stable_counting_sort(1, 1, false, 32, with_values, Ids::SKEWED, rnd);
    grouping_is_a_stable_counting_sort(1000, 1, false, 64, with_values, Ids::SKEWED, rnd);
    grouping_is_a_stable_counting_sort(1000, 7, false, 32, with_values, Ids::SKEWED, rnd);
    grouping_is_a_stable_counting_sort(3001, 200, false, 96, with_values, Ids::SKEWED, rnd);
    grouping_is_a_stable_counting_sort(777, 5000, false, 1024, with_values, Ids::SKEWED, rnd);
    // the block path (up to block_grouping::BUCKETS): partial chunks and tiles, tiles of one and of two chunks (the
    // last case: a whole tile, then a partial tile of a whole chunk and a partial one)
    for (int64_t n : {1, 31, 4095, 4096, 4097, 2 * block_grouping::CHUNK + block_grouping::CHUNK / 2 + 3}) {
      for (int32_t partitions : {1, 2, 200, 256}) {
        const int32_t chunks = n > block_grouping::CHUNK && partitions % 2 == 0 ? 2 : 1;
        const Ids kind = partitions == 2 ? Ids::UNIFORM : Ids::SKEWED;
        grouping_is_a_stable_counting_sort(n, partitions, true, chunks * block_grouping::CHUNK, with_values, kind, rnd);
      }
      grouping_is_a_stable_counting_sort(n, 256, true, block_grouping::CHUNK, with_values, Ids::ONE, rnd);
    }
  }
  if (failures) return 1;
  printf("ok\n");
}
