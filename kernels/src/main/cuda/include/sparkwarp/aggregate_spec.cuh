// What one aggregate of a group-by computes, as the kernels of aggregate.cu take it: an AggSpec (its operation, how
// its input is read and its result written, its accumulators), and its Kind, the operation, input layout and
// number of factors as compile-time constants. with_kind calls the instantiation of a spec's kind, so that the code
// run for a row decides nothing about what it computes. Layout twin: io.sparkwarp.kernels.cuda.CudaAggregatePrimitives.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace sparkwarp {
namespace agg {

constexpr int MAX_AGGREGATES = 24;  // io.sparkwarp.kernels.aggregate.AggregatePrimitives.MAX_AGGREGATES
constexpr int MAX_FACTORS = 2;      // io.sparkwarp.kernels.aggregate.Aggregate.MAX_FACTORS

// io.sparkwarp.kernels.aggregate.AggregateOp, by ordinal
enum AggOp : int32_t { AGG_COUNT_ALL = 0, AGG_COUNT = 1, AGG_SUM = 2, AGG_MIN = 3, AGG_MAX = 4 };
// How an input's values are read, and how a result is written (CudaAggregatePrimitives.Layout, by ordinal)
enum Layout : int32_t { L_NONE, L_BOOL, L_INT8, L_INT16, L_INT32, L_INT64, L_INT128, L_FLOAT, L_DOUBLE };
constexpr int32_t OPT_NULL_POISONS = 1;
constexpr int32_t OPT_IDENTITY_WHEN_EMPTY = 2;
constexpr int32_t OPT_MASK_FALSE = 4;  // rows take part where the mask is false (not null) instead of true
constexpr uint32_t FLAG_SEEN = 1;
constexpr uint32_t FLAG_POISONED = 2;

// One aggregate, passed by value. Layout twin: io.sparkwarp.kernels.cuda.CudaAggregatePrimitives#specs.
struct AggSpec {
  const uint32_t* validity;       // input; nullptr for COUNT_ALL
  const uint8_t* data;
  const uint32_t* mask_validity;  // a boolean mask column; nullptr: every row
  const uint32_t* mask_bits;
  unsigned long long* acc;        // groups x acc_words accumulators
  uint32_t* flags;                // a FLAG_ word per group
  uint32_t* out_validity;
  uint8_t* out_data;
  uint32_t* overflow;             // set to 1 when a group overflows or is poisoned
  uint64_t bound_lo;              // decimal results: 10^precision; 0 for other results
  uint64_t bound_hi;
  int32_t op;
  int32_t input;                  // Layout of the input
  int32_t result;                 // Layout of the result
  int32_t options;                // OPT_ bits
  const uint32_t* factor_validity[MAX_FACTORS];  // a sum of products: the other factors (int64), or nullptr
  const uint8_t* factor_data[MAX_FACTORS];
};

struct AggSpecs {
  AggSpec spec[MAX_AGGREGATES];
  int32_t count;
};

// The byte layout CudaAggregatePrimitives#specs writes.
static_assert(offsetof(AggSpec, mask_bits) == 24 && offsetof(AggSpec, overflow) == 64, "AggSpec pointers");
static_assert(offsetof(AggSpec, bound_lo) == 72 && offsetof(AggSpec, op) == 88 && offsetof(AggSpec, options) == 100,
              "AggSpec scalars");
static_assert(offsetof(AggSpec, factor_validity) == 104 && offsetof(AggSpec, factor_data) == 120, "AggSpec factors");
static_assert(sizeof(AggSpec) == 136 && offsetof(AggSpecs, count) == MAX_AGGREGATES * 136, "AggSpecs");

__device__ __forceinline__ bool bit_at(const uint32_t* bits, int64_t i) { return (bits[i >> 5] >> (i & 31)) & 1u; }

__host__ __device__ __forceinline__ bool sums_floating(const AggSpec& s) {
  return s.input == L_FLOAT || s.input == L_DOUBLE;
}

// 64-bit accumulator words per group: exact sums take three (on the host too: bench/aggregate_accumulate.cu).
__host__ __device__ __forceinline__ int acc_words(const AggSpec& s) {
  return s.op == AGG_SUM && !sums_floating(s) ? 3 : 1;
}

// Doubles as int64 keys whose signed order is Spark's order of the values: NaN (canonical) above +inf; -0.0 sorts
// just below 0.0, as Double.compare puts it.
__device__ __forceinline__ int64_t double_key(double d) {
  if (isnan(d)) d = __longlong_as_double(0x7ff8000000000000ll);
  const int64_t b = __double_as_longlong(d);
  return b >= 0 ? b : b ^ 0x7fffffffffffffffll;
}

__device__ __forceinline__ double key_double(int64_t k) {
  return __longlong_as_double(k >= 0 ? k : k ^ 0x7fffffffffffffffll);
}

__device__ __forceinline__ int64_t read_int(int32_t layout, const uint8_t* data, int64_t row) {
  switch (layout) {
    case L_BOOL: return bit_at(reinterpret_cast<const uint32_t*>(data), row);
    case L_INT8: return reinterpret_cast<const int8_t*>(data)[row];
    case L_INT16: return reinterpret_cast<const int16_t*>(data)[row];
    case L_INT32: return reinterpret_cast<const int32_t*>(data)[row];
    default: return reinterpret_cast<const int64_t*>(data)[row];
  }
}

__device__ __forceinline__ double read_double(int32_t layout, const uint8_t* data, int64_t row) {
  return layout == L_FLOAT ? static_cast<double>(reinterpret_cast<const float*>(data)[row])
                           : reinterpret_cast<const double*>(data)[row];
}

// An aggregate's operation, input layout and number of factors as compile-time constants.
template <int32_t OP, int32_t INPUT, int FACTORS>
struct Kind {
  __device__ static constexpr int32_t op() { return OP; }
  __device__ static constexpr int32_t input() { return INPUT; }
  __device__ static constexpr int factors() { return FACTORS; }
  __device__ static constexpr bool floating() { return INPUT == L_FLOAT || INPUT == L_DOUBLE; }
  __device__ static constexpr bool counts() { return OP == AGG_COUNT_ALL || OP == AGG_COUNT; }
};

// Calls f(Kind<...>{}) for the kind of s. A sum of products reads decimals, whose layout is INT64 (Aggregate#check).
template <typename F>
__device__ __forceinline__ void with_kind(const AggSpec& s, F f) {
  auto by_layout = [&](auto op) {
    constexpr int32_t OP = decltype(op)::value;
    switch (s.input) {
      case L_BOOL: return f(Kind<OP, L_BOOL, 0>{});
      case L_INT8: return f(Kind<OP, L_INT8, 0>{});
      case L_INT16: return f(Kind<OP, L_INT16, 0>{});
      case L_INT32: return f(Kind<OP, L_INT32, 0>{});
      case L_INT128: return f(Kind<OP, L_INT128, 0>{});
      case L_FLOAT: return f(Kind<OP, L_FLOAT, 0>{});
      case L_DOUBLE: return f(Kind<OP, L_DOUBLE, 0>{});
      default: return f(Kind<OP, L_INT64, 0>{});
    }
  };
  switch (s.op) {
    case AGG_COUNT_ALL: return f(Kind<AGG_COUNT_ALL, L_NONE, 0>{});
    case AGG_COUNT: return f(Kind<AGG_COUNT, L_NONE, 0>{});
    case AGG_SUM:
      if (s.factor_data[1] != nullptr) return f(Kind<AGG_SUM, L_INT64, 2>{});
      if (s.factor_data[0] != nullptr) return f(Kind<AGG_SUM, L_INT64, 1>{});
      return by_layout(std::integral_constant<int32_t, AGG_SUM>{});
    case AGG_MIN: return by_layout(std::integral_constant<int32_t, AGG_MIN>{});
    default: return by_layout(std::integral_constant<int32_t, AGG_MAX>{});
  }
}

}  // namespace agg
}  // namespace sparkwarp
