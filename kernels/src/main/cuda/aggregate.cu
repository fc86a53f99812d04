// Group-by hash aggregation. The rows' keys go into an open-addressing table of tagged rows (hash_table.cuh), the
// first row of each key claiming a slot by CAS and later rows finding it (keys compared with join_keys.cuh, every
// column null-safe: null keys group together); occupied slots are numbered densely by a scan (scan.cu), which gives
// the groups and their first rows, whose keys are gathered as the groups' keys (select.cu).
// Accumulation runs in one of two modes the host picks from the group count:
//  - groups whose accumulators fit shared memory (Q1's 4, up to a few hundred): every block keeps up to 32 copies
//    of them, lane l of each warp adding its rows to copy l % copies with shared atomics; the block merges its
//    copies once at the end and adds them to the global accumulators, one atomic per group and aggregate;
//  - many groups (up to millions): global atomics per row, spread over the table so they rarely collide.
// Sums are exact 192-bit integers (int192.cuh) or doubles; minima and maxima are order-preserving int64 keys; a
// flag word per group says whether a non-null input was seen or a null poisoned the group. The finalise kernel
// writes Arrow columns and flags overflow. Host twin: io.sparkwarp.kernels.host.HostAggregatePrimitives;
// orchestration: io.sparkwarp.kernels.cuda.CudaAggregatePrimitives.
#include <cmath>
#include <cstdint>

#include "sparkwarp/aggregate_parts.cuh"
#include "sparkwarp/aggregate_spec.cuh"
#include "sparkwarp/block_accumulators.cuh"
#include "sparkwarp/grid.cuh"
#include "sparkwarp/hash_table.cuh"
#include "sparkwarp/int192.cuh"
#include "sparkwarp/join_keys.cuh"
#include "sparkwarp/warp.cuh"

using namespace sparkwarp;
using namespace sparkwarp::agg;

// The shared kernel's accumulators (block_accumulators.cuh): dynamic, sized by CudaAggregatePrimitives.
extern __shared__ unsigned long long shared_acc[];

namespace {

constexpr int ACC_BLOCK = 256;  // threads a block of sw_agg_accumulate_shared: CudaKernel.BLOCK
constexpr int ACC_ITEMS = 2;    // rows a thread reads per aggregate before it adds them: loads in flight

__device__ __forceinline__ int64_t group_of(const int32_t* slot_of_row, const int32_t* group_of_slot, int64_t row) {
  return group_of_slot == nullptr ? 0 : group_of_slot[slot_of_row[row]];
}

}  // namespace

// Normalises a key column that is not int32, int64 or bytes into int64 keys: booleans, bytes and shorts widened,
// floats and doubles as the bits of a double with NaN canonical and -0.0 as 0.0 (Spark's grouping equality).
// kind: 0 boolean, 1 byte, 2 short, 3 float, 4 double (CudaAggregatePrimitives#normaliseKey).
extern "C" __global__ void sw_agg_key_to_int64(const uint8_t* data, int32_t kind, int64_t n, int64_t* out) {
  for_each_index(n, [&](int64_t i) {
    int64_t v;
    if (kind <= 2) {
      v = read_int(kind == 0 ? L_BOOL : kind == 1 ? L_INT8 : L_INT16, data, i);
    } else {
      double d = read_double(kind == 3 ? L_FLOAT : L_DOUBLE, data, i);
      if (isnan(d)) d = __longlong_as_double(0x7ff8000000000000ll);
      if (d == 0.0) d = 0.0;
      v = __double_as_longlong(d);
    }
    out[i] = v;
  });
}

// Finds or claims the slot of every row's key; slot_of_row[row] = its slot. Slots start EMPTY_SLOT.
extern "C" __global__ void sw_agg_insert(KeyColumns keys, int64_t n, unsigned long long* slots, uint64_t mask,
                                         int32_t* slot_of_row) {
  for_each_index(n, [&](int64_t row) {
    const uint64_t hash = key_hash(keys, row);
    const unsigned long long mine = tagged_row(hash, row);
    for (uint64_t slot = hash & mask;; slot = (slot + 1) & mask) {
      unsigned long long entry = slots[slot];
      if (entry == EMPTY_SLOT) {
        entry = atomicCAS(slots + slot, EMPTY_SLOT, mine);
        if (entry == EMPTY_SLOT) {
          slot_of_row[row] = static_cast<int32_t>(slot);
          return;
        }
      }
      if (tag_matches(entry, hash) && keys_equal(keys, tagged_row_id(entry), keys, row)) {
        slot_of_row[row] = static_cast<int32_t>(slot);
        return;
      }
    }
  });
}

// flags[s] = 1 for an occupied slot: scanned into the slots' group numbers.
extern "C" __global__ void sw_agg_slot_flags(const unsigned long long* slots, int64_t n, int32_t* flags) {
  for_each_index(n, [&](int64_t s) { flags[s] = slots[s] != EMPTY_SLOT; });
}

// first_rows[group of slot s] = the row that claimed s.
extern "C" __global__ void sw_agg_first_rows(const unsigned long long* slots, int64_t n, const int32_t* group_of_slot,
                                             int32_t* first_rows) {
  for_each_index(n, [&](int64_t s) {
    const unsigned long long entry = slots[s];
    if (entry != EMPTY_SLOT) first_rows[group_of_slot[s]] = tagged_row_id(entry);
  });
}

// Every aggregate's accumulators of every group to their starting values.
extern "C" __global__ void sw_agg_init(AggSpecs specs, int64_t groups) {
  for_each_index(groups, [&](int64_t g) {
    for (int k = 0; k < specs.count; k++) init_acc(specs.spec[k], specs.spec[k].acc, specs.spec[k].flags, g);
  });
}

// Accumulates rows [0, n) into their groups (group_of_slot == nullptr: one global group) with global atomics per
// row: groups whose accumulators do not fit shared memory.
extern "C" __global__ void sw_agg_accumulate(AggSpecs specs, int64_t n, const int32_t* slot_of_row,
                                             const int32_t* group_of_slot) {
  for_each_index(n, [&](int64_t row) {
    const int64_t g = group_of(slot_of_row, group_of_slot, row);
    for (int k = 0; k < specs.count; k++) {
      const AggSpec& s = specs.spec[k];
      with_kind(s, [&](auto kind) {
        using K = decltype(kind);
        apply<K>(s.acc, s.flags, g, part_of<K>(s, row));
      });
    }
  });
}

// sw_agg_accumulate for groups whose accumulators fit shared memory: each block accumulates in `copies` (a power
// of two, at most 32) copies of every group's accumulators in dynamic shared memory, groups x copies x
// sum(acc_words x 8 + 4) bytes (every aggregate's accumulators, then their flag words), lane l of each warp in
// copy l % copies; copy c of group g is accumulator g * copies + c, so a warp's lanes, each on its own copy, hit
// consecutive words whatever their groups. At the end the block merges its copies and adds them to the global
// accumulators: one atomic per group and aggregate.
//
// Why copies by lane: the cost to beat is instructions per row. Combining a warp's lanes of one group first
// (shuffle trees, or a __match_any_sync and a segmented reduction) spends cross-lane instructions on every 32
// rows and every aggregate: 30 shuffles a tree for one 192-bit sum. Lane-private accumulators need none, but
// Q1's first stage (15 aggregates, about 300 bytes a group) takes 1.2 KB a thread for 4 groups: 300 KB a block.
// With a copy per lane index shared by the block's warps, a warp's shared atomic goes to 32 different addresses
// (no replay, no bank conflict), warps meeting on an address only queue at the atomic unit, and a block needs
// 32 copies whatever its size (Q1: 4 x 300 x 32 = 38 KB). A row then costs, per aggregate, its loads and
// arithmetic, one shared atomic per accumulator word it changes (a 192-bit sum of non-negative values: one), and
// a shared load of its flag word (the atomicOr only the first time). Each aggregate runs as its compile-time kind
// (with_kind): generic code deciding per row what to read and add took 217 instructions a row and aggregate on
// Q1's shape, the kinds take 131. ACC_ITEMS rows a thread at a time keep loads in flight; the launch bound holds
// the registers that takes to 4 blocks an SM.
extern "C" __global__ void __launch_bounds__(ACC_BLOCK, 4)
    sw_agg_accumulate_shared(AggSpecs specs, int64_t n, const int32_t* slot_of_row, const int32_t* group_of_slot,
                             int64_t groups, int32_t copies) {
  const BlockAccumulators block = BlockAccumulators::start(specs, shared_acc, groups, copies);
  // tiles of ACC_ITEMS rows a thread, each of the ACC_ITEMS reads coalesced over the block
  const int64_t tile = static_cast<int64_t>(blockDim.x) * ACC_ITEMS;
  const int copy = lane_id() & (copies - 1);
  for_each_block_tile((n + tile - 1) / tile, [&](int64_t t) {
    // each step's loads for all ACC_ITEMS rows before any is used: the row's slot, its group, then per aggregate
    int64_t row[ACC_ITEMS];
    int64_t slot[ACC_ITEMS];
#pragma unroll
    for (int j = 0; j < ACC_ITEMS; j++) {
      row[j] = t * tile + j * blockDim.x + threadIdx.x;
      slot[j] = row[j] < n && group_of_slot != nullptr ? slot_of_row[row[j]] : 0;
    }
#pragma unroll
    for (int j = 0; j < ACC_ITEMS; j++) {
      slot[j] = row[j] >= n ? -1 : (group_of_slot == nullptr ? 0 : group_of_slot[slot[j]]) * copies + copy;
    }
    unsigned long long* acc = block.words;
    for (int k = 0; k < specs.count; k++) {
      const AggSpec& s = specs.spec[k];
      uint32_t* flags = block.flags(k);
      with_kind(s, [&](auto kind) {
        using K = decltype(kind);
        Part p[ACC_ITEMS];
#pragma unroll
        for (int j = 0; j < ACC_ITEMS; j++) {
          if (slot[j] >= 0) p[j] = part_of<K>(s, row[j]);
        }
#pragma unroll
        for (int j = 0; j < ACC_ITEMS; j++) {
          if (slot[j] >= 0) apply<K>(acc, flags, slot[j], p[j]);
        }
      });
      acc += block.slots() * acc_words(s);  // the next aggregate's: block.acc(specs, k + 1)
    }
  });
  block.flush(specs);
}

// Writes every aggregate's result column for every group: values, validity (a ballot per 32 groups), and the
// overflow flag.
extern "C" __global__ void sw_agg_finalize(AggSpecs specs, int64_t groups) {
  for_each_warp_tile((groups + 31) >> 5, [&](int64_t w) {
    const int64_t g = (w << 5) + lane_id();
    const bool in_range = g < groups;
    for (int k = 0; k < specs.count; k++) {
      const AggSpec& s = specs.spec[k];
      bool valid = false;
      bool bit = false;
      if (in_range) {
        const Part p = held(s, s.acc, s.flags, g);
        if (s.op == AGG_COUNT_ALL || s.op == AGG_COUNT) {
          reinterpret_cast<int64_t*>(s.out_data)[g] = static_cast<int64_t>(p.count);
          valid = true;
        } else if (s.op == AGG_SUM) {
          const bool empty = !(p.flags & FLAG_SEEN);
          if (p.flags & FLAG_POISONED) {
            atomicOr(s.overflow, 1u);
          } else if (!empty || (s.options & OPT_IDENTITY_WHEN_EMPTY)) {
            valid = true;
            const Int192 v = empty ? int192_zero() : p.sum;
            if (s.result == L_DOUBLE) {
              reinterpret_cast<double*>(s.out_data)[g] = sums_floating(s) ? (empty ? 0.0 : p.fsum) : int192_to_double(v);
            } else if (s.bound_lo == 0 && s.bound_hi == 0) {  // a long: Spark's legacy wrap-around
              if (!int192_fits64(v)) atomicOr(s.overflow, 1u);
              reinterpret_cast<uint64_t*>(s.out_data)[g] = v.w[0];
            } else if (!int192_magnitude_below(v, s.bound_lo, s.bound_hi)) {  // a decimal beyond its precision
              valid = false;
              atomicOr(s.overflow, 1u);
            } else if (s.result == L_INT128) {
              reinterpret_cast<uint64_t*>(s.out_data)[2 * g] = v.w[0];
              reinterpret_cast<uint64_t*>(s.out_data)[2 * g + 1] = v.w[1];
            } else {
              reinterpret_cast<uint64_t*>(s.out_data)[g] = v.w[0];
            }
          }
        } else if (p.flags & FLAG_SEEN) {  // min, max
          valid = true;
          switch (s.result) {
            case L_BOOL: bit = p.best != 0; break;
            case L_INT8: reinterpret_cast<int8_t*>(s.out_data)[g] = static_cast<int8_t>(p.best); break;
            case L_INT16: reinterpret_cast<int16_t*>(s.out_data)[g] = static_cast<int16_t>(p.best); break;
            case L_INT32: reinterpret_cast<int32_t*>(s.out_data)[g] = static_cast<int32_t>(p.best); break;
            case L_FLOAT: reinterpret_cast<float*>(s.out_data)[g] = static_cast<float>(key_double(p.best)); break;
            case L_DOUBLE: reinterpret_cast<double*>(s.out_data)[g] = key_double(p.best); break;
            default: reinterpret_cast<int64_t*>(s.out_data)[g] = p.best; break;
          }
        } else if (s.options & OPT_IDENTITY_WHEN_EMPTY) {  // boolean extremes: min's identity true, max's false
          valid = true;
          bit = s.op == AGG_MIN;
        }
      }
      const uint32_t valid_word = __ballot_sync(FULL_WARP, valid);
      const uint32_t bit_word = __ballot_sync(FULL_WARP, bit);
      if (lane_id() == 0) {
        s.out_validity[w] = valid_word;
        if (s.result == L_BOOL) reinterpret_cast<uint32_t*>(s.out_data)[w] = bit_word;
      }
    }
  });
}

// Spark's average from a sum and a count, row by row (AggregatePrimitives#mean): null for a zero or null count;
// null for a null sum (an overflow, flagged); a DOUBLE sum divided as doubles; a decimal sum (L_INT64 or L_INT128)
// scaled by `scale_factor` (10^(result scale - sum scale)), divided by the count and rounded half up, null and
// flagged where the quotient reaches `bound` (10^result precision). Exact (int192_scaled_quotient).
extern "C" __global__ void sw_agg_mean(const uint32_t* sum_validity, const uint8_t* sum_data, int32_t sum_layout,
                                       const uint32_t* count_validity, const int64_t* counts, int64_t n,
                                       uint64_t scale_factor, uint64_t bound_lo, uint64_t bound_hi,
                                       int32_t result_layout, uint32_t* out_validity, uint8_t* out_data,
                                       uint32_t* overflow) {
  for_each_warp_tile((n + 31) >> 5, [&](int64_t w) {
    const int64_t r = (w << 5) + lane_id();
    bool valid = false;
    const int64_t count = r < n && bit_at(count_validity, r) ? counts[r] : 0;
    if (count != 0 && !bit_at(sum_validity, r)) {
      atomicOr(overflow, 1u);
    } else if (count != 0 && sum_layout == L_DOUBLE) {
      reinterpret_cast<double*>(out_data)[r] =
          reinterpret_cast<const double*>(sum_data)[r] / static_cast<double>(count);
      valid = true;
    } else if (count != 0) {
      Int192 v = sum_layout == L_INT128
                     ? int192_from128(reinterpret_cast<const uint64_t*>(sum_data)[2 * r],
                                      reinterpret_cast<const int64_t*>(sum_data)[2 * r + 1])
                     : int192_from64(reinterpret_cast<const int64_t*>(sum_data)[r]);
      const bool negative = int192_negative(v) != (count < 0);
      if (int192_negative(v)) v = int192_negate(v);
      const uint64_t c = count < 0 ? 0ull - static_cast<uint64_t>(count) : static_cast<uint64_t>(count);
      Int192 result = int192_scaled_quotient(v, scale_factor, c);
      if (!int192_magnitude_below(result, bound_lo, bound_hi)) {
        atomicOr(overflow, 1u);
      } else {
        if (negative) result = int192_negate(result);
        if (result_layout == L_INT128) {
          reinterpret_cast<uint64_t*>(out_data)[2 * r] = result.w[0];
          reinterpret_cast<uint64_t*>(out_data)[2 * r + 1] = result.w[1];
        } else {
          reinterpret_cast<uint64_t*>(out_data)[r] = result.w[0];
        }
        valid = true;
      }
    }
    const uint32_t word = __ballot_sync(FULL_WARP, valid);
    if (lane_id() == 0) out_validity[w] = word;
  });
}
