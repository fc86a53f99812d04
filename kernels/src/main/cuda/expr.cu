// The expression program interpreter: one thread per row, 32-row tiles per warp. Every warp steps through the
// program together: each step runs the instruction at the lowest program counter among its lanes, with only the
// lanes standing there taking part, so lanes that jumped ahead wait until the others catch up and the warp
// re-converges after every conditional. The instruction fetch is therefore warp-uniform, and OUTPUT runs with all
// lanes converged, writing validity and boolean words with one ballot each. Host twin:
// io.sparkwarp.kernels.host.ExprInterpreter; the instruction set is documented on io.sparkwarp.kernels.expr.Opcode.
#include "sparkwarp/decimal128.cuh"
#include "sparkwarp/decimal_divide.cuh"
#include "sparkwarp/expr_program.cuh"
#include "sparkwarp/sql_math.cuh"
#include "sparkwarp/warp.cuh"

using namespace sparkwarp;
using namespace sparkwarp::expr;

namespace {

constexpr int64_t MICROS_PER_DAY = 86400000000LL;

// What one row's evaluation needs besides its stack.
struct Program {
  const int64_t* literals;
  const uint8_t* bytes;
  const InputColumn* inputs;
};

// The evaluation state of one row: a stack of payloads (int64, double bits or a byte address; the low word of a
// 128-bit decimal, whose high word is in hi), byte lengths and null flags, and the error it raised, if any.
struct Row {
  int64_t v[MAX_STACK_DEPTH];
  int64_t hi[MAX_STACK_DEPTH];
  int32_t len[MAX_STACK_DEPTH];
  bool null[MAX_STACK_DEPTH];
  int sp;
  int64_t index;
  int error;
  int64_t error_left;
  int64_t error_right;
  int64_t error_left_hi;  // 128-bit decimal operands' high words
  int64_t error_right_hi;

  __device__ void set(int s, int64_t x) {
    v[s] = x;
    null[s] = false;
  }
  __device__ void set_double(int s, double x) { set(s, double_bits(x)); }
  __device__ void set128(int s, int128 x) {
    set(s, static_cast<int64_t>(low_word(x)));
    hi[s] = high_word(x);
  }
  __device__ int128 get128(int s) const { return make_int128(static_cast<uint64_t>(v[s]), hi[s]); }
  __device__ double d(int s) const { return as_double(v[s]); }
  __device__ void set_null(int s) {
    v[s] = 0;
    len[s] = 0;
    null[s] = true;
  }
  // An error the row raises; TRY mode makes the result null instead (LEGACY callers handle their case first).
  __device__ void raise(int mode, int kind, int s, int64_t left, int64_t right, int64_t left_hi = 0,
                        int64_t right_hi = 0) {
    if (mode == MODE_TRY) {
      set_null(s);
    } else {
      error = kind;
      error_left = left;
      error_right = right;
      error_left_hi = left_hi;
      error_right_hi = right_hi;
    }
  }
};

__device__ __forceinline__ bool is_floating(int kind) { return kind == KIND_FLOAT || kind == KIND_DOUBLE; }
__device__ __forceinline__ bool is_bytes(int kind) { return kind == KIND_STRING || kind == KIND_BINARY; }

__device__ __forceinline__ bool is_zero(const Row& r, int s, int kind) {
  return is_floating(kind) ? r.d(s) == 0.0 : r.v[s] == 0 && (kind != KIND_DECIMAL128 || r.hi[s] == 0);
}

__device__ __forceinline__ bool bit(const uint32_t* words, int64_t i) { return (words[i >> 5] >> (i & 31)) & 1u; }

__device__ void load(Row& r, int s, const InputColumn& c, int kind) {
  const int64_t i = r.index;
  if (!bit(c.validity, i)) {
    r.set_null(s);
    return;
  }
  switch (kind) {
    case KIND_BOOLEAN: r.set(s, bit(reinterpret_cast<const uint32_t*>(c.data), i)); break;
    case KIND_BYTE: r.set(s, reinterpret_cast<const int8_t*>(c.data)[i]); break;
    case KIND_SHORT: r.set(s, reinterpret_cast<const int16_t*>(c.data)[i]); break;
    case KIND_INT:
    case KIND_DATE: r.set(s, reinterpret_cast<const int32_t*>(c.data)[i]); break;
    case KIND_FLOAT: r.set_double(s, reinterpret_cast<const float*>(c.data)[i]); break;
    case KIND_DECIMAL128: {
      const int64_t* words = reinterpret_cast<const int64_t*>(c.data);
      r.set128(s, make_int128(static_cast<uint64_t>(words[2 * i]), words[2 * i + 1]));
      break;
    }
    case KIND_STRING:
    case KIND_BINARY: {
      const int32_t start = c.offsets[i];
      r.set(s, reinterpret_cast<int64_t>(c.data + start));
      r.len[s] = c.offsets[i + 1] - start;
      break;
    }
    default: r.set(s, reinterpret_cast<const int64_t*>(c.data)[i]); break;  // long, double, timestamp, decimal
  }
}

__device__ int compare_slots(const Row& r, int a, int b, int kind) {
  if (is_bytes(kind)) {
    return compare_bytes(reinterpret_cast<const uint8_t*>(r.v[a]), r.len[a], reinterpret_cast<const uint8_t*>(r.v[b]),
                         r.len[b]);
  }
  if (is_floating(kind)) return compare_doubles(r.d(a), r.d(b));
  if (kind == KIND_DECIMAL128) {
    const int128 x = r.get128(a), y = r.get128(b);
    return x < y ? -1 : (x == y ? 0 : 1);
  }
  return r.v[a] < r.v[b] ? -1 : (r.v[a] == r.v[b] ? 0 : 1);
}

// Slot l = left (cmp) right, right in slot l + 1.
__device__ void compare(Row& r, int l, int kind, int cmp) {
  const int rt = l + 1;
  if (cmp == CMP_EQ_NULL_SAFE) {
    const bool eq = (r.null[l] || r.null[rt]) ? (r.null[l] && r.null[rt]) : compare_slots(r, l, rt, kind) == 0;
    r.set(l, eq);
    return;
  }
  if (r.null[l] || r.null[rt]) {
    r.set_null(l);
    return;
  }
  const int c = compare_slots(r, l, rt, kind);
  bool result;
  switch (cmp) {
    case CMP_EQ: result = c == 0; break;
    case CMP_LT: result = c < 0; break;
    case CMP_LE: result = c <= 0; break;
    case CMP_GT: result = c > 0; break;
    default: result = c >= 0; break;
  }
  r.set(l, result);
}

// Three-valued AND (dominant value 0) or OR (dominant value 1).
__device__ void logic(Row& r, int l, int64_t dominant) {
  const int rt = l + 1;
  if ((!r.null[l] && r.v[l] == dominant) || (!r.null[rt] && r.v[rt] == dominant)) {
    r.set(l, dominant);
  } else if (r.null[l] || r.null[rt]) {
    r.set_null(l);
  } else {
    r.set(l, 1 - dominant);
  }
}

__device__ void in_list(Row& r, int s, const Program& p, int kind, bool list_has_null, int first, int count) {
  if (r.null[s]) return;
  for (int i = first; i < first + count; i++) {
    const int64_t lit = p.literals[i];
    bool match;
    if (is_bytes(kind)) {
      match = compare_bytes(reinterpret_cast<const uint8_t*>(r.v[s]), r.len[s], p.bytes + (lit >> 32),
                            static_cast<int32_t>(lit)) == 0;
    } else if (is_floating(kind)) {
      match = compare_doubles(r.d(s), as_double(lit)) == 0;
    } else {
      match = r.v[s] == lit;
    }
    if (match) {
      r.set(s, 1);
      return;
    }
  }
  if (list_has_null) {
    r.set_null(s);
  } else {
    r.set(s, 0);
  }
}

__device__ void integral(Row& r, int op, int s, int64_t x, int64_t y, int kind, int mode) {
  int64_t z;
  bool overflow;
  switch (op) {
    case OP_ADD:
      z = static_cast<int64_t>(static_cast<uint64_t>(x) + static_cast<uint64_t>(y));
      overflow = ((x ^ z) & (y ^ z)) < 0;
      break;
    case OP_SUBTRACT:
      z = static_cast<int64_t>(static_cast<uint64_t>(x) - static_cast<uint64_t>(y));
      overflow = ((x ^ y) & (x ^ z)) < 0;
      break;
    case OP_MULTIPLY: overflow = !multiply_fits(x, y, &z); break;
    case OP_INTEGRAL_DIVIDE:
      // C++ leaves INT64_MIN / -1 undefined; Java gives INT64_MIN, and Spark's ANSI mode an overflow
      overflow = x == INT64_MIN && y == -1;
      z = overflow ? INT64_MIN : x / y;
      break;
    default:  // remainder; x % -1 is 0 in Java, undefined for INT64_MIN in C++
      z = y == -1 ? 0 : x % y;
      overflow = false;
      break;
  }
  overflow |= kind != KIND_LONG && z != wrap_to(z, kind);
  if (overflow && mode != MODE_LEGACY) {
    r.raise(mode, ERR_ARITHMETIC_OVERFLOW, s, x, y);
  } else {
    r.set(s, wrap_to(z, kind));
  }
}

// A field of a date (days since 1970-01-01) in the proleptic Gregorian calendar: Howard Hinnant's civil_from_days,
// exact for every int32 day, as Java's LocalDate.ofEpochDay computes it.
__device__ void date_field(Row& r, int s, int field) {
  if (r.null[s]) return;
  const int64_t z = r.v[s] + 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const int64_t doe = z - era * 146097;                                     // [0, 146096]
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;  // [0, 399]
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);              // [0, 365], from March 1st
  const int64_t mp = (5 * doy + 2) / 153;                                   // [0, 11], March = 0
  const int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const int64_t month = mp < 10 ? mp + 3 : mp - 9;
  const int64_t year = yoe + era * 400 + (month <= 2);
  switch (field) {
    case FIELD_YEAR: r.set(s, year); break;
    case FIELD_QUARTER: r.set(s, (month + 2) / 3); break;
    case FIELD_MONTH: r.set(s, month); break;
    default: r.set(s, day); break;
  }
}

__device__ void decimal_overflow(Row& r, int s, int mode, int64_t left, int64_t right, int64_t left_hi = 0,
                                 int64_t right_hi = 0) {
  if (mode == MODE_LEGACY) {
    r.set_null(s);
  } else {
    r.raise(mode, ERR_DECIMAL_OVERFLOW, s, left, right, left_hi, right_hi);
  }
}

// The overflow of an operation on 128-bit decimals, reporting both operands whole.
__device__ void decimal128_overflow(Row& r, int s, int mode, int128 x, int128 y) {
  decimal_overflow(r, s, mode, static_cast<int64_t>(low_word(x)), static_cast<int64_t>(low_word(y)), high_word(x),
                   high_word(y));
}

// Decimal arithmetic on unscaled values: the builder's scale rules keep every intermediate in 64 bits, products
// aside (checked in 128 bits); the result is checked against its precision like Spark's Decimal.toPrecision.
__device__ void decimal(Row& r, int op, int s, int64_t x, int64_t y, int mode, int scales) {
  const int s1 = scales & 0xff;
  const int s2 = (scales >> 8) & 0xff;
  const int p = (scales >> 16) & 0xff;
  const int rs = (scales >> 24) & 0xff;
  const int common = s1 > s2 ? s1 : s2;
  const int64_t xs = static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(POW10[common - s1]));
  const int64_t ys = static_cast<int64_t>(static_cast<uint64_t>(y) * static_cast<uint64_t>(POW10[common - s2]));
  int64_t z;
  switch (op) {
    case OP_ADD: z = xs + ys; break;
    case OP_SUBTRACT: z = xs - ys; break;
    case OP_MULTIPLY:
      if (p > 18) {  // a 128-bit product of two 64-bit decimals: exact, and within p1 + p2 + 1 <= p digits
        r.set128(s, static_cast<int128>(x) * y);
        return;
      }
      if (!multiply_fits(x, y, &z)) {
        decimal_overflow(r, s, mode, x, y);
        return;
      }
      break;
    case OP_DIVIDE: z = divide_half_up(x * POW10[rs + s2 - s1], y); break;
    case OP_REMAINDER: z = xs % ys; break;
    default: r.set(s, xs / ys); return;  // integral divide: the quotient always fits and leaves as a long
  }
  if (z <= -POW10[p] || z >= POW10[p]) {
    decimal_overflow(r, s, mode, x, y);
  } else {
    r.set(s, z);
  }
}

// ADD and SUBTRACT of 128-bit decimals at scales s1 and s2 into Spark's result type (scale max(s1, s2), precision
// large enough that the operands at that scale, and their sum, fit: the builder allows no other). MULTIPLY: the
// product in 128 bits, rounded HALF_UP to the result scale rs; the builder allows rs < s1 + s2 only where the
// product cannot leave 128 bits, so a product that does is past 38 digits and overflows as in Spark. DIVIDE (x the
// dividend): Spark's two roundings of the exact quotient (decimal_divide.cuh).
__device__ void decimal128(Row& r, int op, int s, int128 x, int128 y, int mode, int scales) {
  const int s1 = scales & 0xff;
  const int s2 = (scales >> 8) & 0xff;
  const int p = (scales >> 16) & 0xff;
  const int rs = (scales >> 24) & 0xff;
  if (op == OP_MULTIPLY || op == OP_DIVIDE) {
    int128 z = 0;
    bool fits;
    if (op == OP_DIVIDE) {
      fits = divide_decimal128(x, y, s1, s2, rs, p, &z);
    } else {
      fits = multiply_fits128(x, y, &z);
      if (fits && rs < s1 + s2) z = shrink_half_up(z, s1 + s2 - rs);
      fits = fits && fits_digits(z, p);
    }
    if (fits) {
      r.set128(s, z);
    } else {
      decimal128_overflow(r, s, mode, x, y);
    }
    return;
  }
  const int common = s1 > s2 ? s1 : s2;
  const int128 z = x * pow10_128(common - s1) + (op == OP_ADD ? 1 : -1) * (y * pow10_128(common - s2));
  if (fits_digits(z, p)) {
    r.set128(s, z);
  } else {
    decimal128_overflow(r, s, mode, x, y);
  }
}

// Slot l receives the result. ADD, SUBTRACT, MULTIPLY: left in l, right in l + 1. Divisions: divisor in l, dividend
// in l + 1.
__device__ void arithmetic(Row& r, int op, int l, int kind, int mode, int scales) {
  const int t = l + 1;
  if (r.null[l] || r.null[t]) {
    r.set_null(l);
    return;
  }
  const bool division = op == OP_DIVIDE || op == OP_REMAINDER || op == OP_INTEGRAL_DIVIDE;
  const int left = division ? t : l;
  const int right = division ? l : t;
  if (division && is_zero(r, right, kind)) {
    if (mode == MODE_LEGACY) {
      r.set_null(l);
    } else {
      r.raise(mode, ERR_DIVIDE_BY_ZERO, l, r.v[left], r.v[right], r.hi[left], r.hi[right]);
    }
    return;
  }
  if (is_floating(kind)) {
    const double x = r.d(left), y = r.d(right);
    double z;
    switch (op) {
      case OP_ADD: z = __dadd_rn(x, y); break;
      case OP_SUBTRACT: z = __dsub_rn(x, y); break;
      case OP_MULTIPLY: z = __dmul_rn(x, y); break;
      case OP_DIVIDE: z = __ddiv_rn(x, y); break;
      default: z = fmod(x, y); break;
    }
    r.set_double(l, kind == KIND_FLOAT ? static_cast<double>(__double2float_rn(z)) : z);
  } else if (kind == KIND_DECIMAL) {
    decimal(r, op, l, r.v[left], r.v[right], mode, scales);
  } else if (kind == KIND_DECIMAL128) {
    decimal128(r, op, l, r.get128(left), r.get128(right), mode, scales);
  } else {
    integral(r, op, l, r.v[left], r.v[right], kind, mode);
  }
}

__device__ void negate(Row& r, int s, int kind, int mode) {
  if (r.null[s]) return;
  if (kind == KIND_DECIMAL128) {  // |x| < 10^38: the negation fits
    r.set128(s, -r.get128(s));
    return;
  }
  if (is_floating(kind)) {
    r.set_double(s, -r.d(s));
    return;
  }
  const int64_t x = r.v[s];
  const int64_t min = kind == KIND_BYTE ? INT8_MIN : kind == KIND_SHORT ? INT16_MIN : kind == KIND_INT ? INT32_MIN
                                                                                                         : INT64_MIN;
  if (kind != KIND_DECIMAL && mode != MODE_LEGACY && x == min) {
    r.raise(mode, ERR_ARITHMETIC_OVERFLOW, s, x, 0);
  } else {
    r.set(s, wrap_to(static_cast<int64_t>(0ULL - static_cast<uint64_t>(x)), kind));
  }
}

// An integer (or a decimal truncated toward zero) narrowed to `to`: wrapped in LEGACY mode, else range-checked.
__device__ void integral_to_integral(Row& r, int s, int64_t x, int to, int mode) {
  if (mode != MODE_LEGACY && wrap_to(x, to) != x) {
    r.raise(mode, ERR_CAST_OVERFLOW, s, r.v[s], 0);
  } else {
    r.set(s, wrap_to(x, to));
  }
}

// Java's (int) / (long) conversion narrowed to byte or short by wrapping; ANSI and TRY first require the value to
// lie in the target's range with the bounds Spark's exact numerics use (the source type's rounding of the bound).
__device__ void floating_to_integral(Row& r, int s, int from, int to, int mode) {
  const double x = r.d(s);
  const bool to_long = to == KIND_LONG;
  if (mode != MODE_LEGACY) {
    const double upper = from == KIND_FLOAT ? (to_long ? 9223372036854775808.0 : 2147483648.0)
                                            : (to_long ? 9223372036854775808.0 : 2147483647.0);
    const double lower = to_long ? -9223372036854775808.0 : -2147483648.0;
    const bool in_range = floor(x) <= upper && ceil(x) >= lower;
    if (!in_range || (!to_long && wrap_to(java_d2i(x), to) != java_d2i(x))) {
      r.raise(mode, ERR_CAST_OVERFLOW, s, r.v[s], 0);
      return;
    }
  }
  r.set(s, to_long ? java_d2l(x) : wrap_to(java_d2i(x), to));
}

// A cast from or to a 128-bit decimal: from integers and decimals, to decimals; null (or the error) when the value
// does not fit the target's precision.
__device__ void cast128(Row& r, int s, int from, int to, int mode, int from_scale, int to_precision, int to_scale) {
  const int128 x = from == KIND_DECIMAL128 ? r.get128(s) : static_cast<int128>(r.v[s]);
  const int scale = from == KIND_DECIMAL || from == KIND_DECIMAL128 ? from_scale : 0;
  int128 z;
  if (!rescale128(x, scale, to_scale, to_precision, &z)) {
    decimal_overflow(r, s, mode, static_cast<int64_t>(low_word(x)), 0);
  } else if (to == KIND_DECIMAL128) {
    r.set128(s, z);
  } else {
    r.set(s, static_cast<int64_t>(z));
  }
}

__device__ void cast(Row& r, int s, int from, int to, int operands) {
  if (r.null[s]) return;
  if (from == KIND_DECIMAL128 || to == KIND_DECIMAL128) {
    cast128(r, s, from, to, operands & 0xff, (operands >> 8) & 0xff, (operands >> 16) & 0xff,
            (operands >> 24) & 0xff);
    return;
  }
  const int mode = operands & 0xff;
  const int from_scale = (operands >> 8) & 0xff;
  const int to_precision = (operands >> 16) & 0xff;
  const int to_scale = (operands >> 24) & 0xff;
  const int64_t x = r.v[s];
  const double dx = r.d(s);
  switch (to) {
    case KIND_BOOLEAN: r.set(s, is_floating(from) ? dx != 0.0 : x != 0); break;
    case KIND_BYTE:
    case KIND_SHORT:
    case KIND_INT:
    case KIND_LONG:
      if (is_floating(from)) {
        floating_to_integral(r, s, from, to, mode);
      } else {
        integral_to_integral(r, s, from == KIND_DECIMAL ? x / POW10[from_scale] : x, to, mode);
      }
      break;
    case KIND_FLOAT: {
      float f;
      if (from == KIND_DECIMAL) {
        f = __fdiv_rn(static_cast<float>(x), FLOAT_POW10[from_scale]);
      } else if (from == KIND_DOUBLE) {
        f = __double2float_rn(dx);
      } else {
        f = __ll2float_rn(x);
      }
      r.set_double(s, f);
      break;
    }
    case KIND_DOUBLE:
      if (from == KIND_DECIMAL) {
        r.set_double(s, __ddiv_rn(static_cast<double>(x), DOUBLE_POW10[from_scale]));
      } else if (from != KIND_FLOAT) {
        r.set_double(s, __ll2double_rn(x));
      }
      break;
    case KIND_DECIMAL: {
      const int scale = from == KIND_DECIMAL ? from_scale : 0;
      // x * 10^(to_scale - scale) must stay below 10^to_precision
      const int digits = to_precision - to_scale + scale;
      const bool fits = to_scale < scale || digits >= 19 || (x > -POW10[digits] && x < POW10[digits]);
      int64_t z = 0;
      if (to_scale < scale) {
        z = divide_half_up(x, POW10[scale - to_scale]);
      } else if (fits) {
        z = x * POW10[to_scale - scale];
      }
      if (fits && z > -POW10[to_precision] && z < POW10[to_precision]) {
        r.set(s, z);
      } else {
        decimal_overflow(r, s, mode, x, 0);
      }
      break;
    }
    case KIND_DATE: r.set(s, floor_div(x, MICROS_PER_DAY)); break;
    default: {  // timestamp from date; Spark raises this overflow in every mode but TRY
      int64_t micros;
      if (!multiply_fits(x, MICROS_PER_DAY, &micros)) {
        r.raise(mode == MODE_TRY ? MODE_TRY : MODE_ANSI, ERR_DATETIME_OVERFLOW, s, x, 0);
      } else {
        r.set(s, micros);
      }
      break;
    }
  }
}

// Executes one instruction other than OUTPUT for one row; returns the next program counter.
__device__ int step(Row& r, int4 ins, int pc, const Program& p) {
  const int a = ins.y, b = ins.z, c = ins.w;
  int& sp = r.sp;
  switch (ins.x) {
    case OP_COLUMN: load(r, sp++, p.inputs[a], b); break;
    case OP_LITERAL:
      if (b) {  // a 128-bit decimal: low word at a, high word at a + 1
        r.set128(sp++, make_int128(static_cast<uint64_t>(p.literals[a]), p.literals[a + 1]));
      } else {
        r.set(sp++, p.literals[a]);
      }
      break;
    case OP_NULL: r.set_null(sp++); break;
    case OP_BYTES_LITERAL:
      r.set(sp, reinterpret_cast<int64_t>(p.bytes + a));
      r.len[sp++] = b;
      break;
    case OP_COMPARE: compare(r, --sp - 1, a, b); break;
    case OP_NOT:
      if (!r.null[sp - 1]) r.v[sp - 1] = r.v[sp - 1] == 0;
      break;
    case OP_AND: logic(r, --sp - 1, 0); break;
    case OP_OR: logic(r, --sp - 1, 1); break;
    case OP_IS_NULL: r.set(sp - 1, r.null[sp - 1]); break;
    case OP_IS_NOT_NULL: r.set(sp - 1, !r.null[sp - 1]); break;
    case OP_IN: in_list(r, sp - 1, p, a & 0xff, (a >> 8) & 1, b, c); break;
    case OP_ADD:
    case OP_SUBTRACT:
    case OP_MULTIPLY:
    case OP_DIVIDE:
    case OP_REMAINDER:
    case OP_INTEGRAL_DIVIDE: arithmetic(r, ins.x, --sp - 1, a, b, c); break;
    case OP_NEGATE: negate(r, sp - 1, a, b); break;
    case OP_DATE_FIELD: date_field(r, sp - 1, a); break;
    case OP_CAST: cast(r, sp - 1, a, b, c); break;
    case OP_JUMP: return a;
    case OP_JUMP_IF_NOT_TRUE:
      sp--;
      if (r.null[sp] || r.v[sp] == 0) return a;
      break;
    case OP_JUMP_IF_NULL:
      if (r.null[sp - 1]) return a;
      break;
    case OP_JUMP_IF_FALSE:
      if (!r.null[sp - 1] && r.v[sp - 1] == 0) return a;
      break;
    case OP_JUMP_IF_TRUE:
      if (!r.null[sp - 1] && r.v[sp - 1] != 0) return a;
      break;
    case OP_COALESCE_JUMP:
      if (!r.null[sp - 1]) return a;
      sp--;
      break;
    case OP_DIVISOR_CHECK:
      if (r.null[sp - 1] || (c != MODE_ANSI && is_zero(r, sp - 1, b))) {
        r.set_null(sp - 1);
        return a;
      }
      break;
  }
  return pc + 1;
}

// OUTPUT for the 32 rows of one tile, all lanes converged: lanes at this instruction (`here`) store their value;
// lane 0 writes the tile's validity word (and value word for booleans), whose other bits are zero.
__device__ void output(const Row& r, bool here, int kind, const OutputColumn& out, int64_t tile) {
  const int s = r.sp - 1;
  const bool valid = here && !r.null[s];
  const uint32_t valid_bits = __ballot_sync(FULL_WARP, valid);
  if (kind == KIND_BOOLEAN) {
    const uint32_t value_bits = __ballot_sync(FULL_WARP, valid && r.v[s] != 0);
    if (lane_id() == 0) reinterpret_cast<uint32_t*>(out.data)[tile] = value_bits;
  }
  if (lane_id() == 0) out.validity[tile] = valid_bits;
  if (!here) return;
  const int64_t i = r.index;
  const int64_t x = valid ? r.v[s] : 0;
  switch (kind) {
    case KIND_BOOLEAN: break;
    case KIND_BYTE: reinterpret_cast<int8_t*>(out.data)[i] = static_cast<int8_t>(x); break;
    case KIND_SHORT: reinterpret_cast<int16_t*>(out.data)[i] = static_cast<int16_t>(x); break;
    case KIND_INT:
    case KIND_DATE: reinterpret_cast<int32_t*>(out.data)[i] = static_cast<int32_t>(x); break;
    case KIND_FLOAT: {
      const float f = static_cast<float>(r.d(s));
      reinterpret_cast<uint32_t*>(out.data)[i] = !valid ? 0u : isnan(f) ? 0x7fc00000u : __float_as_uint(f);
      break;
    }
    case KIND_DOUBLE:
      reinterpret_cast<int64_t*>(out.data)[i] = !valid ? 0 : isnan(r.d(s)) ? 0x7ff8000000000000LL : x;
      break;
    case KIND_DECIMAL128:
      reinterpret_cast<int64_t*>(out.data)[2 * i] = x;
      reinterpret_cast<int64_t*>(out.data)[2 * i + 1] = valid ? r.hi[s] : 0;
      break;
    default: reinterpret_cast<int64_t*>(out.data)[i] = x; break;
  }
}

}  // namespace

// Evaluates the program for rows [row_begin, row_end). code: n_instr instructions of four int32 words; literals and
// bytes: the literal pools; outputs: one entry per program output. A failing row lowers error->row and stops.
// With `detail` set the launch covers one row (the failing one), writes no outputs, and fills in error->kind, site
// and operands: two launches make the report independent of the order threads fail in.
extern "C" __global__ void sw_expr_eval(const int4* code, int32_t n_instr, const int64_t* literals,
                                        const uint8_t* bytes, const InputColumn* inputs, const OutputColumn* outputs,
                                        int64_t row_begin, int64_t row_end, ErrorRecord* error, int32_t detail) {
  const Program p{literals, bytes, inputs};
  const int64_t first_tile = row_begin >> 5;
  const int64_t tiles = ((row_end + 31) >> 5) - first_tile;
  for_each_warp_tile(tiles, [&](int64_t t) {
    const int64_t tile = first_tile + t;
    Row r;
    r.index = (tile << 5) + lane_id();
    r.sp = 0;
    r.error = ERR_NONE;
    int pc = (r.index >= row_begin && r.index < row_end) ? 0 : n_instr;
    while (true) {
      const int at = __reduce_min_sync(FULL_WARP, pc);
      if (at >= n_instr) break;
      const int4 ins = code[at];
      const bool here = pc == at;
      if (ins.x == OP_OUTPUT) {
        if (!detail) output(r, here, ins.z, outputs[ins.y], tile);
        if (here) {
          r.sp--;
          pc++;
        }
      } else if (here) {
        pc = step(r, ins, pc, p);
        if (r.error != ERR_NONE) {
          if (detail) {
            error->kind = r.error;
            error->site = at;
            error->left = r.error_left;
            error->right = r.error_right;
            error->left_hi = r.error_left_hi;
            error->right_hi = r.error_right_hi;
          } else {
            atomicMin(&error->row, static_cast<unsigned long long>(r.index));
          }
          pc = n_instr;
        }
      }
    }
  });
}
