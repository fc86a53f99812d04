package io.sparkwarp.kernels.host;

import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType.Kind;
import io.sparkwarp.kernels.expr.DateField;
import io.sparkwarp.kernels.expr.EvalMode;
import io.sparkwarp.kernels.expr.ExprProgram;
import io.sparkwarp.kernels.expr.ExpressionErrorException;
import io.sparkwarp.kernels.expr.Opcode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.util.List;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * The reference interpreter of {@link ExprProgram}s: one row at a time, one instruction at a time, in plain Java
 * arithmetic that is Spark's own (Java's integer wrap-around, float and double operations, Math.multiplyHigh for
 * decimal products). The CUDA kernel ({@code expr.cu}) mirrors it operation for operation.
 */
final class ExprInterpreter {
  private static final Opcode[] OPS = Opcode.values();
  private static final Kind[] KINDS = Kind.values();
  private static final EvalMode[] MODES = EvalMode.values();
  private static final DateField[] FIELDS = DateField.values();
  private static final long MICROS_PER_DAY = 86_400_000_000L;
  private static final long[] POW10 = new long[19];
  private static final float[] FLOAT_POW10 = new float[11];
  private static final double[] DOUBLE_POW10 = new double[23];

  static {
    POW10[0] = 1;
    for (int i = 1; i < POW10.length; i++) POW10[i] = POW10[i - 1] * 10;
    for (int i = 0; i < FLOAT_POW10.length; i++) FLOAT_POW10[i] = (float) Math.pow(10, i);
    for (int i = 0; i < DOUBLE_POW10.length; i++) DOUBLE_POW10[i] = Math.pow(10, i);
  }

  private final ExprProgram program;
  private final int[] code;
  private final long[] literals;
  private final long bytesLiterals;
  private final DeviceBatch input;
  private final List<DeviceColumn> outputs;
  // the stack: payload (int64, double bits, or a byte address), byte length, null flag
  private final long[] v = new long[ExprProgram.MAX_STACK_DEPTH];
  /** The high words of 128-bit decimals; their low words are in v. */
  private final long[] hi = new long[ExprProgram.MAX_STACK_DEPTH];
  private final int[] len = new int[ExprProgram.MAX_STACK_DEPTH];
  private final boolean[] isNull = new boolean[ExprProgram.MAX_STACK_DEPTH];
  private int row;

  /**
   * @param bytesLiterals address of the program's byte literals in host memory
   * @param outputs one column per program output (pass-through entries are not written), validity and values zeroed
   */
  ExprInterpreter(ExprProgram program, long bytesLiterals, DeviceBatch input, List<DeviceColumn> outputs) {
    this.program = program;
    this.code = program.code();
    this.literals = program.literals();
    this.bytesLiterals = bytesLiterals;
    this.input = input;
    this.outputs = outputs;
  }

  /** Runs the program for one row, writing its outputs. */
  void run(int row) {
    this.row = row;
    int sp = 0;
    int pc = 0;
    int end = code.length / 4;
    while (pc < end) {
      int a = code[4 * pc + 1];
      int b = code[4 * pc + 2];
      int c = code[4 * pc + 3];
      int next = pc + 1;
      switch (OPS[code[4 * pc]]) {
        case COLUMN -> load(sp++, input.column(a), KINDS[b]);
        case LITERAL -> {
          if (b != 0) set128(sp++, Decimal128.of(literals[a], literals[a + 1]));  // low word at a, high at a + 1
          else set(sp++, literals[a]);
        }
        case NULL -> setNull(sp++);
        case BYTES_LITERAL -> {
          set(sp, bytesLiterals + a);
          len[sp++] = b;
        }
        case COMPARE -> compare(--sp - 1, KINDS[a], b);
        case NOT -> {
          if (!isNull[sp - 1]) v[sp - 1] = v[sp - 1] == 0 ? 1 : 0;
        }
        case AND -> logic(--sp - 1, false);
        case OR -> logic(--sp - 1, true);
        case IS_NULL -> set(sp - 1, isNull[sp - 1] ? 1 : 0);
        case IS_NOT_NULL -> set(sp - 1, isNull[sp - 1] ? 0 : 1);
        case IN -> in(sp - 1, KINDS[a & 0xff], (a & 1 << 8) != 0, b, c);
        case ADD, SUBTRACT, MULTIPLY -> arithmetic(OPS[code[4 * pc]], --sp - 1, sp, KINDS[a], MODES[b], c, pc);
        case DIVIDE, REMAINDER, INTEGRAL_DIVIDE -> arithmetic(OPS[code[4 * pc]], --sp - 1, sp, KINDS[a], MODES[b], c,
            pc);
        case NEGATE -> negate(sp - 1, KINDS[a], MODES[b], pc);
        case CAST -> cast(sp - 1, KINDS[a], KINDS[b], c, pc);
        case JUMP -> next = a;
        case JUMP_IF_NOT_TRUE -> {
          sp--;
          if (isNull[sp] || v[sp] == 0) next = a;
        }
        case JUMP_IF_NULL -> {
          if (isNull[sp - 1]) next = a;
        }
        case JUMP_IF_FALSE -> {
          if (!isNull[sp - 1] && v[sp - 1] == 0) next = a;
        }
        case JUMP_IF_TRUE -> {
          if (!isNull[sp - 1] && v[sp - 1] != 0) next = a;
        }
        case COALESCE_JUMP -> {
          if (!isNull[sp - 1]) next = a;
          else sp--;
        }
        case DIVISOR_CHECK -> {
          if (isNull[sp - 1] || MODES[c] != EvalMode.ANSI && isZero(sp - 1, KINDS[b])) {
            setNull(sp - 1);
            next = a;
          }
        }
        case OUTPUT -> store(--sp, outputs.get(a));
        case DATE_FIELD -> dateField(sp - 1, FIELDS[a]);
      }
      pc = next;
    }
  }

  // ---- Stack slots ----

  private void set(int slot, long value) {
    v[slot] = value;
    isNull[slot] = false;
  }

  private void set128(int slot, BigInteger value) {
    set(slot, Decimal128.low(value));
    hi[slot] = Decimal128.high(value);
  }

  private BigInteger get128(int slot) {
    return Decimal128.of(v[slot], hi[slot]);
  }

  private void setDouble(int slot, double value) {
    set(slot, Double.doubleToRawLongBits(value));
  }

  private double d(int slot) {
    return Double.longBitsToDouble(v[slot]);
  }

  private void setNull(int slot) {
    v[slot] = 0;
    len[slot] = 0;
    isNull[slot] = true;
  }

  /** A field of the date in {@code slot}, in the proleptic Gregorian calendar (Spark's LocalDate.ofEpochDay). */
  private void dateField(int slot, DateField field) {
    if (isNull[slot]) return;
    java.time.LocalDate date = java.time.LocalDate.ofEpochDay(v[slot]);
    set(slot, switch (field) {
      case YEAR -> date.getYear();
      case QUARTER -> (date.getMonthValue() + 2) / 3;
      case MONTH -> date.getMonthValue();
      case DAY_OF_MONTH -> date.getDayOfMonth();
    });
  }

  private boolean isZero(int slot, Kind kind) {
    return isFloating(kind) ? d(slot) == 0 : v[slot] == 0 && (kind != Kind.DECIMAL128 || hi[slot] == 0);
  }

  private static boolean isFloating(Kind kind) {
    return kind == Kind.FLOAT || kind == Kind.DOUBLE;
  }

  /**
   * An error the row raises: in TRY mode the result is null instead; LEGACY callers handle their own case first.
   * Operands are left then right (dividend then divisor).
   */
  private void raise(EvalMode mode, ExpressionErrorException.Kind kind, int slot, int site, long... operands) {
    if (mode == EvalMode.TRY) {
      setNull(slot);
    } else {
      throw new ExpressionErrorException(kind, row, program, site, operands);
    }
  }

  // ---- Loads and stores ----

  private void load(int slot, DeviceColumn column, Kind kind) {
    if (!HostBatchPrimitives.getBit(column.validity().address(), row)) {
      setNull(slot);
      return;
    }
    long data = column.data().address();
    switch (kind) {
      case BOOLEAN -> set(slot, HostBatchPrimitives.getBit(data, row) ? 1 : 0);
      case BYTE -> set(slot, MemoryUtil.getByte(data + row));
      case SHORT -> set(slot, MemoryUtil.getShort(data + 2L * row));
      case INT, DATE -> set(slot, MemoryUtil.getInt(data + 4L * row));
      case LONG, TIMESTAMP, DECIMAL -> set(slot, MemoryUtil.getLong(data + 8L * row));
      case FLOAT -> setDouble(slot, Float.intBitsToFloat(MemoryUtil.getInt(data + 4L * row)));
      case DOUBLE -> set(slot, MemoryUtil.getLong(data + 8L * row));
      case DECIMAL128 -> set128(slot, Decimal128.of(MemoryUtil.getLong(data + 16L * row),
          MemoryUtil.getLong(data + 16L * row + 8)));
      case STRING, BINARY -> {
        long offsets = column.offsets().address();
        int start = MemoryUtil.getInt(offsets + 4L * row);
        set(slot, data + start);
        len[slot] = MemoryUtil.getInt(offsets + 4L * row + 4) - start;
      }
    }
  }

  /** Null values store zero; NaN stores the canonical NaN (floatToIntBits / doubleToLongBits). */
  private void store(int slot, DeviceColumn column) {
    boolean valid = !isNull[slot];
    if (valid) HostBatchPrimitives.setBit(column.validity().address(), row, true);
    long data = column.data().address();
    long x = valid ? v[slot] : 0;
    switch (column.type().kind()) {
      case BOOLEAN -> HostBatchPrimitives.setBit(data, row, x != 0);
      case BYTE -> MemoryUtil.putByte(data + row, (byte) x);
      case SHORT -> MemoryUtil.putShort(data + 2L * row, (short) x);
      case INT, DATE -> MemoryUtil.putInt(data + 4L * row, (int) x);
      case LONG, TIMESTAMP, DECIMAL -> MemoryUtil.putLong(data + 8L * row, x);
      case FLOAT -> MemoryUtil.putInt(data + 4L * row, valid ? Float.floatToIntBits((float) d(slot)) : 0);
      case DOUBLE -> MemoryUtil.putLong(data + 8L * row, valid ? Double.doubleToLongBits(d(slot)) : 0);
      case DECIMAL128 -> {
        MemoryUtil.putLong(data + 16L * row, x);
        MemoryUtil.putLong(data + 16L * row + 8, valid ? hi[slot] : 0);
      }
      case STRING, BINARY -> throw new IllegalStateException("computed bytes output");
    }
  }

  // ---- Predicates ----

  /** Spark's SQLOrderingUtil.compareDoubles: -0.0 equals 0.0, NaN equals NaN and is above everything else. */
  static int compareDoubles(double x, double y) {
    return x == y ? 0 : Double.compare(x, y);
  }

  /** UTF8String.binaryCompare and Spark's binary ordering: unsigned bytes, then length. */
  static int compareBytes(long x, int xLen, long y, int yLen) {
    for (int i = 0; i < Math.min(xLen, yLen); i++) {
      int d = (MemoryUtil.getByte(x + i) & 0xff) - (MemoryUtil.getByte(y + i) & 0xff);
      if (d != 0) return d;
    }
    return Integer.compare(xLen, yLen);
  }

  private int compareSlots(int l, int r, Kind kind) {
    if (kind == Kind.STRING || kind == Kind.BINARY) return compareBytes(v[l], len[l], v[r], len[r]);
    if (isFloating(kind)) return compareDoubles(d(l), d(r));
    if (kind == Kind.DECIMAL128) return get128(l).compareTo(get128(r));
    return Long.compare(v[l], v[r]);
  }

  /** left = left (cmp) right, right in slot l + 1. */
  private void compare(int l, Kind kind, int comparison) {
    int r = l + 1;
    if (comparison == 5) {  // EQ_NULL_SAFE
      set(l, isNull[l] || isNull[r] ? (isNull[l] && isNull[r] ? 1 : 0) : (compareSlots(l, r, kind) == 0 ? 1 : 0));
      return;
    }
    if (isNull[l] || isNull[r]) {
      setNull(l);
      return;
    }
    int cmp = compareSlots(l, r, kind);
    boolean result = switch (comparison) {
      case 0 -> cmp == 0;
      case 1 -> cmp < 0;
      case 2 -> cmp <= 0;
      case 3 -> cmp > 0;
      default -> cmp >= 0;
    };
    set(l, result ? 1 : 0);
  }

  /** Three-valued AND (dominant value false) or OR (dominant value true). */
  private void logic(int l, boolean or) {
    int r = l + 1;
    long dominant = or ? 1 : 0;
    if (!isNull[l] && v[l] == dominant || !isNull[r] && v[r] == dominant) {
      set(l, dominant);
    } else if (isNull[l] || isNull[r]) {
      setNull(l);
    } else {
      set(l, 1 - dominant);
    }
  }

  private void in(int slot, Kind kind, boolean listHasNull, int first, int count) {
    if (isNull[slot]) return;
    for (int i = first; i < first + count; i++) {
      long lit = literals[i];
      boolean match;
      if (kind == Kind.STRING || kind == Kind.BINARY) {
        match = compareBytes(v[slot], len[slot], bytesLiterals + (lit >>> 32), (int) lit) == 0;
      } else if (isFloating(kind)) {
        match = compareDoubles(d(slot), Double.longBitsToDouble(lit)) == 0;
      } else {
        match = v[slot] == lit;
      }
      if (match) {
        set(slot, 1);
        return;
      }
    }
    if (listHasNull) setNull(slot);
    else set(slot, 0);
  }

  // ---- Arithmetic ----

  /**
   * Slot l receives the result. For ADD, SUBTRACT, MULTIPLY l holds left and r right; for the divisions l holds the
   * divisor and r the dividend.
   */
  private void arithmetic(Opcode op, int l, int r, Kind kind, EvalMode mode, int scales, int site) {
    if (isNull[l] || isNull[r]) {
      setNull(l);
      return;
    }
    boolean division = op == Opcode.DIVIDE || op == Opcode.REMAINDER || op == Opcode.INTEGRAL_DIVIDE;
    int left = division ? r : l;
    int right = division ? l : r;
    if (division && isZero(right, kind)) {
      if (mode == EvalMode.LEGACY) setNull(l);
      else raise(mode, ExpressionErrorException.Kind.DIVIDE_BY_ZERO, l, site, v[left], v[right], hi[left], hi[right]);
      return;
    }
    if (isFloating(kind)) {
      double x = d(left);
      double y = d(right);
      double z = switch (op) {
        case ADD -> x + y;
        case SUBTRACT -> x - y;
        case MULTIPLY -> x * y;
        case DIVIDE -> x / y;
        default -> x % y;
      };
      setDouble(l, kind == Kind.FLOAT ? (float) z : z);
    } else if (kind == Kind.DECIMAL) {
      decimal(op, l, v[left], v[right], mode, scales, site);
    } else if (kind == Kind.DECIMAL128) {
      decimal128(op, l, get128(left), get128(right), mode, scales, site);
    } else {
      integral(op, l, v[left], v[right], kind, mode, site);
    }
  }

  private void integral(Opcode op, int slot, long x, long y, Kind kind, EvalMode mode, int site) {
    long z;
    boolean overflow;
    switch (op) {
      case ADD -> {
        z = x + y;
        overflow = ((x ^ z) & (y ^ z)) < 0;
      }
      case SUBTRACT -> {
        z = x - y;
        overflow = ((x ^ y) & (x ^ z)) < 0;
      }
      case MULTIPLY -> {
        z = x * y;
        overflow = Math.multiplyHigh(x, y) != z >> 63;
      }
      case INTEGRAL_DIVIDE -> {
        // Java's LONG_MIN / -1 is LONG_MIN; Spark raises an overflow for it in ANSI mode
        z = x / y;
        overflow = x == Long.MIN_VALUE && y == -1;
      }
      default -> {
        z = x % y;
        overflow = false;
      }
    }
    // narrower kinds never overflow 64 bits; they overflow when the result leaves their own range
    overflow |= kind != Kind.LONG && z != wrap(z, kind);
    if (overflow && mode != EvalMode.LEGACY) {
      raise(mode, ExpressionErrorException.Kind.ARITHMETIC_OVERFLOW, slot, site, x, y);
    } else {
      set(slot, wrap(z, kind));
    }
  }

  /** Java's narrowing of a long to {@code kind}'s width, sign-extended back. */
  static long wrap(long x, Kind kind) {
    return switch (kind) {
      case BYTE -> (byte) x;
      case SHORT -> (short) x;
      case INT, DATE -> (int) x;
      default -> x;
    };
  }

  /**
   * Decimal arithmetic on unscaled values (see ExprProgram.Builder.arithmetic for the scale rules that keep every
   * intermediate in 64 bits, products aside), rounded HALF_UP to the result scale, then checked against the result
   * precision like Spark's Decimal.toPrecision.
   */
  private void decimal(Opcode op, int slot, long x, long y, EvalMode mode, int scales, int site) {
    int s1 = scales & 0xff;
    int s2 = scales >> 8 & 0xff;
    int p = scales >> 16 & 0xff;
    int s = scales >>> 24;
    int common = Math.max(s1, s2);
    long xs = x * POW10[common - s1];
    long ys = y * POW10[common - s2];
    long z;
    switch (op) {
      case ADD -> z = xs + ys;
      case SUBTRACT -> z = xs - ys;
      case MULTIPLY -> {
        if (p > 18) {  // a 128-bit product of two 64-bit decimals: exact, within p1 + p2 + 1 <= p digits
          set128(slot, BigInteger.valueOf(x).multiply(BigInteger.valueOf(y)));
          return;
        }
        z = x * y;
        if (Math.multiplyHigh(x, y) != z >> 63) {
          decimalOverflow(slot, mode, site, x, y);
          return;
        }
      }
      case DIVIDE -> z = divideHalfUp(x * POW10[s + s2 - s1], y);
      case REMAINDER -> z = xs % ys;
      default -> {
        set(slot, xs / ys);  // INTEGRAL_DIVIDE: the quotient always fits; Spark hands it on as a long
        return;
      }
    }
    if (z <= -POW10[p] || z >= POW10[p]) decimalOverflow(slot, mode, site, x, y);
    else set(slot, z);
  }

  /**
   * ADD and SUBTRACT of 128-bit decimals into Spark's result type (scale max(s1, s2)); MULTIPLY exactly, rounded
   * HALF_UP to the result's scale where Spark lowered it; DIVIDE (x the dividend) as Spark's Decimal.$div and
   * toPrecision: rounded HALF_UP to scale 39, then to the result's scale.
   */
  private void decimal128(Opcode op, int slot, BigInteger x, BigInteger y, EvalMode mode, int scales, int site) {
    int s1 = scales & 0xff;
    int s2 = scales >> 8 & 0xff;
    int p = scales >> 16 & 0xff;
    int rs = scales >>> 24;
    BigInteger z;
    if (op == Opcode.MULTIPLY) {
      z = Decimal128.rescale(x.multiply(y), s1 + s2, rs, p);
    } else if (op == Opcode.DIVIDE) {
      z = new BigDecimal(x, s1).divide(new BigDecimal(y, s2), 39, RoundingMode.HALF_UP)
          .setScale(rs, RoundingMode.HALF_UP).unscaledValue();
      if (!Decimal128.fits(z, p)) z = null;
    } else {
      int common = Math.max(s1, s2);
      BigInteger xs = x.multiply(Decimal128.pow10(common - s1));
      BigInteger ys = y.multiply(Decimal128.pow10(common - s2));
      z = op == Opcode.ADD ? xs.add(ys) : xs.subtract(ys);
      if (!Decimal128.fits(z, p)) z = null;
    }
    if (z != null) {
      set128(slot, z);
    } else {
      decimalOverflow(slot, mode, site, Decimal128.low(x), Decimal128.low(y), Decimal128.high(x), Decimal128.high(y));
    }
  }

  private void decimalOverflow(int slot, EvalMode mode, int site, long... operands) {
    if (mode == EvalMode.LEGACY) setNull(slot);
    else raise(mode, ExpressionErrorException.Kind.DECIMAL_OVERFLOW, slot, site, operands);
  }

  /** x / y rounded half away from zero. */
  static long divideHalfUp(long x, long y) {
    long q = x / y;
    long rem = x % y;
    if (2 * Math.abs(rem) >= Math.abs(y)) q += (x < 0) == (y < 0) ? 1 : -1;
    return q;
  }

  /** x / 10^k rounded half away from zero. */
  static long downscaleHalfUp(long x, int k) {
    return k == 0 ? x : divideHalfUp(x, POW10[k]);
  }

  private void negate(int slot, Kind kind, EvalMode mode, int site) {
    if (isNull[slot]) return;
    if (kind == Kind.DECIMAL128) {
      set128(slot, get128(slot).negate());
    } else if (isFloating(kind)) {
      setDouble(slot, -d(slot));
    } else if (kind != Kind.DECIMAL && mode != EvalMode.LEGACY && v[slot] == minValue(kind)) {
      raise(mode, ExpressionErrorException.Kind.ARITHMETIC_OVERFLOW, slot, site, v[slot]);
    } else {
      set(slot, wrap(-v[slot], kind));
    }
  }

  private static long minValue(Kind kind) {
    return switch (kind) {
      case BYTE -> Byte.MIN_VALUE;
      case SHORT -> Short.MIN_VALUE;
      case INT -> Integer.MIN_VALUE;
      default -> Long.MIN_VALUE;
    };
  }

  // ---- Casts ----

  private void cast(int slot, Kind from, Kind to, int operands, int site) {
    if (isNull[slot]) return;
    EvalMode mode = MODES[operands & 0xff];
    int fromScale = operands >> 8 & 0xff;
    int toPrecision = operands >> 16 & 0xff;
    int toScale = operands >>> 24;
    if (from == Kind.DECIMAL128 || to == Kind.DECIMAL128) {
      BigInteger x = from == Kind.DECIMAL128 ? get128(slot) : BigInteger.valueOf(v[slot]);
      int scale = from == Kind.DECIMAL || from == Kind.DECIMAL128 ? fromScale : 0;
      BigInteger z = Decimal128.rescale(x, scale, toScale, toPrecision);
      if (z == null) decimalOverflow(slot, mode, site, x.longValue(), 0);
      else if (to == Kind.DECIMAL128) set128(slot, z);
      else set(slot, z.longValueExact());
      return;
    }
    long x = v[slot];
    double dx = d(slot);
    switch (to) {
      case BOOLEAN -> set(slot, (isFloating(from) ? dx != 0 : x != 0) ? 1 : 0);
      case BYTE, SHORT, INT, LONG -> {
        if (isFloating(from)) floatingToIntegral(slot, from, to, mode, site);
        else integralToIntegral(slot, from == Kind.DECIMAL ? x / POW10[fromScale] : x, from, to, mode, site);
      }
      case FLOAT -> setDouble(slot, from == Kind.DECIMAL ? (float) x / FLOAT_POW10[fromScale]
          : from == Kind.DOUBLE ? (float) dx : (float) x);
      case DOUBLE -> setDouble(slot, from == Kind.DECIMAL ? (double) x / DOUBLE_POW10[fromScale]
          : from == Kind.FLOAT ? dx : (double) x);
      case DECIMAL -> {
        int scale = from == Kind.DECIMAL ? fromScale : 0;
        // value * 10^(toScale - scale) must stay below 10^toPrecision
        int digits = toPrecision - toScale + scale;
        boolean fits = toScale < scale || digits >= 19 || x > -POW10[digits] && x < POW10[digits];
        long z = toScale < scale ? downscaleHalfUp(x, scale - toScale) : x * POW10[toScale - scale];
        if (fits && z > -POW10[toPrecision] && z < POW10[toPrecision]) set(slot, z);
        else decimalOverflow(slot, mode, site, x);
      }
      case DATE -> set(slot, Math.floorDiv(x, MICROS_PER_DAY));
      case TIMESTAMP -> {
        long micros = x * MICROS_PER_DAY;
        if (Math.multiplyHigh(x, MICROS_PER_DAY) != micros >> 63) {
          raise(mode == EvalMode.TRY ? mode : EvalMode.ANSI, ExpressionErrorException.Kind.DATETIME_OVERFLOW, slot,
              site, x);
        } else {
          set(slot, micros);
        }
      }
      default -> throw new IllegalStateException("cast to " + to);
    }
  }

  /** An integer (or a decimal truncated toward zero) narrowed: wrapped in LEGACY mode, else range-checked. */
  private void integralToIntegral(int slot, long x, Kind from, Kind to, EvalMode mode, int site) {
    if (mode != EvalMode.LEGACY && wrap(x, to) != x) {
      raise(mode, ExpressionErrorException.Kind.CAST_OVERFLOW, slot, site, v[slot]);
    } else {
      set(slot, wrap(x, to));
    }
  }

  /**
   * Java's (int) / (long) conversion (NaN to 0, saturating), narrowed further to byte or short by wrapping; ANSI
   * and TRY first require the value to lie within the target range, as Spark's exact numerics check it.
   */
  private void floatingToIntegral(int slot, Kind from, Kind to, EvalMode mode, int site) {
    double x = d(slot);
    if (mode != EvalMode.LEGACY) {
      boolean toLong = to == Kind.LONG;
      double upper = from == Kind.FLOAT ? (toLong ? (float) Long.MAX_VALUE : (float) Integer.MAX_VALUE)
          : (toLong ? (double) Long.MAX_VALUE : (double) Integer.MAX_VALUE);
      double lower = toLong ? (double) Long.MIN_VALUE : (double) Integer.MIN_VALUE;
      boolean inRange = Math.floor(x) <= upper && Math.ceil(x) >= lower;
      if (!inRange || !toLong && wrap((int) x, to) != (int) x) {
        raise(mode, ExpressionErrorException.Kind.CAST_OVERFLOW, slot, site, v[slot]);
        return;
      }
    }
    set(slot, to == Kind.LONG ? (long) x : wrap((int) x, to));
  }
}
