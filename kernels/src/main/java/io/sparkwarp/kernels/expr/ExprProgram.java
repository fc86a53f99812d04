package io.sparkwarp.kernels.expr;

import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.batch.DeviceType.Kind;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * A compiled expression list: a postfix program that one kernel launch interprets for every row of a batch (one
 * thread per row; all threads of a warp step through the same instruction stream, so interpretation stays
 * warp-uniform), writing one or more output columns. The instruction set is documented on {@link Opcode}.
 *
 * <p>Immutable. Built by {@link Builder}, which tracks the type of every stack slot, so a program that builds is
 * well typed, its jumps balance the stack, and it never needs more than {@link #MAX_STACK_DEPTH} slots.
 */
public final class ExprProgram {
  /** Stack slots the kernel holds per row (registers and local memory). */
  public static final int MAX_STACK_DEPTH = 16;

  /**
   * One instruction with the types the builder checked.
   *
   * @param operandTypes the types of the values it consumes, left to right (dividend then divisor); empty for loads
   *     and jumps
   * @param resultType the type it pushes, or null
   */
  public record Instruction(Opcode op, int a, int b, int c, List<DeviceType> operandTypes, DeviceType resultType) {
    @Override
    public String toString() {
      return op + "(" + a + "," + b + "," + c + ")" + operandTypes + (resultType == null ? "" : " -> " + resultType);
    }
  }

  /**
   * One output column.
   *
   * @param sourceColumn the input column copied unchanged into this output, or -1 for a column the program computes
   */
  public record Output(DeviceType type, int sourceColumn) {
    public boolean passThrough() {
      return sourceColumn >= 0;
    }
  }

  private final List<DeviceType> inputTypes;
  private final List<Instruction> instructions;
  private final long[] literals;
  private final byte[] bytesLiterals;
  private final List<Output> outputs;
  private final int maxStackDepth;

  private ExprProgram(List<DeviceType> inputTypes, List<Instruction> instructions, long[] literals,
      byte[] bytesLiterals, List<Output> outputs, int maxStackDepth) {
    this.inputTypes = inputTypes;
    this.instructions = instructions;
    this.literals = literals;
    this.bytesLiterals = bytesLiterals;
    this.outputs = outputs;
    this.maxStackDepth = maxStackDepth;
  }

  /** Starts a program over input columns of {@code inputTypes}. */
  public static Builder builder(List<DeviceType> inputTypes) {
    return new Builder(inputTypes);
  }

  /** The column types a batch must have to run this program. */
  public List<DeviceType> inputTypes() {
    return inputTypes;
  }

  public List<Instruction> instructions() {
    return instructions;
  }

  /** The instruction stream as the kernel reads it: four int32 words per instruction. */
  public int[] code() {
    int[] code = new int[4 * instructions.size()];
    for (int i = 0; i < instructions.size(); i++) {
      Instruction in = instructions.get(i);
      code[4 * i] = in.op().ordinal();
      code[4 * i + 1] = in.a();
      code[4 * i + 2] = in.b();
      code[4 * i + 3] = in.c();
    }
    return code;
  }

  /** 64-bit literals: integers, unscaled decimals and booleans as int64, floats and doubles as double bits. */
  public long[] literals() {
    return literals.clone();
  }

  /** The bytes of string and binary literals, back to back. */
  public byte[] bytesLiterals() {
    return bytesLiterals.clone();
  }

  public List<Output> outputs() {
    return outputs;
  }

  /** The outputs' types in order. */
  public List<DeviceType> outputTypes() {
    return outputs.stream().map(Output::type).toList();
  }

  public int maxStackDepth() {
    return maxStackDepth;
  }

  /**
   * Throws unless {@code batch}'s columns have the types this program was built for (same kinds, decimal precision
   * and scale, timestamp zone).
   */
  public void checkInputs(DeviceBatch batch) {
    List<DeviceType> types = batch.columns().stream().map(DeviceColumn::type).toList();
    if (!types.equals(inputTypes)) {
      throw new IllegalArgumentException("program over " + inputTypes + " run on columns " + types);
    }
  }

  /** Throws unless this program is a predicate: one output, a computed boolean. */
  /**
   * Whether running the program computes anything: false when every output is a pass-through copy, or when there
   * is no output at all (a projection of nothing: count(*) above a filter or a join needs rows, not columns).
   */
  public boolean computesOutputs() {
    return outputs.stream().anyMatch(o -> !o.passThrough());
  }

  public void checkPredicate() {
    if (outputs.size() != 1 || outputs.get(0).passThrough() || !outputs.get(0).type().equals(DeviceType.BOOLEAN)) {
      throw new IllegalArgumentException("a filter needs one computed boolean output, not " + outputs);
    }
  }

  /** The program as one instruction per line, for logs and test failures. */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("ExprProgram" + inputTypes + " -> " + outputs + "\n");
    for (int i = 0; i < instructions.size(); i++) sb.append(i).append(": ").append(instructions.get(i)).append('\n');
    return sb.toString();
  }

  /** A forward jump target; bind it where the jumps should land. */
  public static final class Label {
    private final List<Integer> jumps = new ArrayList<>();
    /** Stack types at the target as seen by the first jump; null while nothing jumps here. */
    private List<DeviceType> stack;
    private boolean bound;
  }

  /**
   * Appends instructions while checking operand types against a model of the stack. Each method documents what it
   * pops and pushes; invalid programs fail here with {@link IllegalArgumentException}, never on the device.
   */
  public static final class Builder {
    private static final Set<Kind> INTEGRAL = EnumSet.of(Kind.BYTE, Kind.SHORT, Kind.INT, Kind.LONG);
    private static final Set<Kind> FLOATING = EnumSet.of(Kind.FLOAT, Kind.DOUBLE);
    private static final Set<Kind> NUMERIC = EnumSet.of(Kind.BYTE, Kind.SHORT, Kind.INT, Kind.LONG, Kind.FLOAT,
        Kind.DOUBLE, Kind.DECIMAL);
    /** Kinds whose values are int64 payloads compared as signed integers. */
    private static final Set<Kind> INT64_VALUED = EnumSet.of(Kind.BOOLEAN, Kind.BYTE, Kind.SHORT, Kind.INT, Kind.LONG,
        Kind.DATE, Kind.TIMESTAMP, Kind.DECIMAL);

    private final List<DeviceType> inputTypes;
    private final List<int[]> words = new ArrayList<>();
    private final List<Opcode> ops = new ArrayList<>();
    private final List<List<DeviceType>> operandTypes = new ArrayList<>();
    private final List<DeviceType> resultTypes = new ArrayList<>();
    private final List<Long> literals = new ArrayList<>();
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final List<Output> outputs = new ArrayList<>();
    private final List<Label> labels = new ArrayList<>();
    /** Types of the stack slots at the current point; null after an unconditional jump (unreachable code). */
    private List<DeviceType> stack = new ArrayList<>();
    private int maxDepth;

    private Builder(List<DeviceType> inputTypes) {
      this.inputTypes = List.copyOf(inputTypes);
    }

    // ---- Loads ----

    /** Pushes input column {@code column}. */
    public Builder column(int column) {
      DeviceType type = inputTypes.get(column);
      return emit(Opcode.COLUMN, column, type.kind().ordinal(), 0, 0, type);
    }

    /**
     * Pushes a literal held as int64: booleans (0 or 1), integers, dates (days), timestamps (micros) and decimals
     * (unscaled).
     */
    public Builder literal(DeviceType type, long value) {
      require(INT64_VALUED.contains(type.kind()), "an int64 literal of type " + type);
      literals.add(value);
      return emit(Opcode.LITERAL, literals.size() - 1, 0, 0, 0, type);
    }

    /** Pushes a 128-bit decimal literal: the unscaled value's low and high words. */
    public Builder literal128(DeviceType type, long low, long high) {
      require(type.kind() == Kind.DECIMAL128, "a 128-bit literal of type " + type);
      literals.add(low);
      literals.add(high);
      return emit(Opcode.LITERAL, literals.size() - 2, 1, 0, 0, type);
    }

    /** Pushes a float or double literal (a float's value must be a float). */
    public Builder literal(DeviceType type, double value) {
      require(FLOATING.contains(type.kind()), "a floating literal of type " + type);
      require(type.kind() == Kind.DOUBLE || Double.isNaN(value) || (double) (float) value == value,
          "float literal " + value + " is not a float value");
      literals.add(Double.doubleToRawLongBits(value));
      return emit(Opcode.LITERAL, literals.size() - 1, 0, 0, 0, type);
    }

    /** Pushes a string or binary literal. */
    public Builder literal(DeviceType type, byte[] value) {
      require(type.isVariableWidth(), "a bytes literal of type " + type);
      int offset = addBytes(value);
      return emit(Opcode.BYTES_LITERAL, offset, value.length, 0, 0, type);
    }

    /** Pushes a null of {@code type}. */
    public Builder nullLiteral(DeviceType type) {
      return emit(Opcode.NULL, 0, 0, 0, 0, type);
    }

    private int addBytes(byte[] value) {
      int offset = bytes.size();
      bytes.writeBytes(value);
      return offset;
    }

    // ---- Predicates ----

    /** Pops right then left (values of one type; decimals of one scale) and pushes the boolean left (cmp) right. */
    public Builder compare(Comparison comparison) {
      DeviceType right = peek(0);
      DeviceType left = peek(1);
      require(sameValues(left, right), "a comparison of " + left + " with " + right);
      return emit(Opcode.COMPARE, left.kind().ordinal(), comparison.ordinal(), 0, 2, DeviceType.BOOLEAN);
    }

    public Builder not() {
      requireBoolean(1);
      return emit(Opcode.NOT, 0, 0, 0, 1, DeviceType.BOOLEAN);
    }

    public Builder and() {
      requireBoolean(2);
      return emit(Opcode.AND, 0, 0, 0, 2, DeviceType.BOOLEAN);
    }

    public Builder or() {
      requireBoolean(2);
      return emit(Opcode.OR, 0, 0, 0, 2, DeviceType.BOOLEAN);
    }

    public Builder isNull() {
      peek(0);
      return emit(Opcode.IS_NULL, 0, 0, 0, 1, DeviceType.BOOLEAN);
    }

    public Builder isNotNull() {
      peek(0);
      return emit(Opcode.IS_NOT_NULL, 0, 0, 0, 1, DeviceType.BOOLEAN);
    }

    /**
     * Pops a value and pushes whether it is one of {@code values}: Longs (int64 payloads as {@link #literal(
     * DeviceType, long)} takes them), Doubles for floats and doubles, byte arrays for strings and binaries.
     *
     * @param listHasNull whether the SQL list also holds a null (a miss is then null, not false)
     */
    public Builder in(List<?> values, boolean listHasNull) {
      DeviceType type = peek(0);
      require(type.kind() != Kind.DECIMAL128, "IN of " + type);
      int first = literals.size();
      for (Object v : values) {
        if (type.isVariableWidth()) {
          byte[] b = (byte[]) v;
          literals.add((long) addBytes(b) << 32 | b.length);
        } else if (FLOATING.contains(type.kind())) {
          literals.add(Double.doubleToRawLongBits((Double) v));
        } else {
          literals.add((Long) v);
        }
      }
      return emit(Opcode.IN, type.kind().ordinal() | (listHasNull ? 1 << 8 : 0), first, values.size(), 1,
          DeviceType.BOOLEAN);
    }

    // ---- Arithmetic ----

    /**
     * Pops right then left (ADD, SUBTRACT, MULTIPLY) or the dividend then the divisor (DIVIDE, REMAINDER,
     * INTEGRAL_DIVIDE, see {@link #divisorCheck}) and pushes the result. Operands share one kind; the result is
     * {@code result}: the operands' type, a long for INTEGRAL_DIVIDE, or for decimals the type Spark gives the
     * expression, whose scale must be Spark's (max(s1, s2) for + - %, s1 + s2 for *, and for / large enough that
     * the dividend scaled to it fits 18 digits, which holds for every Spark division of precision up to 18).
     * 128-bit decimal results: MULTIPLY of two 64-bit decimals (exact, the product's digits within the result's),
     * MULTIPLY of two 128-bit decimals (rounded to Spark's result scale, see {@code wideDecimalScales}), ADD and
     * SUBTRACT of two 128-bit decimals into a result whose scale is the operands' larger one, and DIVIDE of two
     * 128-bit decimals (Spark's two roundings) where the dividend scaled to the result fits 57 digits.
     */
    public Builder arithmetic(Opcode op, DeviceType result, EvalMode mode) {
      boolean division = op == Opcode.DIVIDE || op == Opcode.REMAINDER || op == Opcode.INTEGRAL_DIVIDE;
      return arithmetic(op, result, mode, peek(division ? 0 : 1).precision(), peek(division ? 1 : 0).precision());
    }

    /**
     * {@link #arithmetic(Opcode, DeviceType, EvalMode)} where the operands' values are known to have at most
     * {@code leftDigits} and {@code rightDigits} digits (at most their types' precisions): a 64-bit decimal widened
     * to 128 bits keeps its own, which decides whether a 128-bit product can be rounded exactly.
     */
    public Builder arithmetic(Opcode op, DeviceType result, EvalMode mode, int leftDigits, int rightDigits) {
      boolean division = op == Opcode.DIVIDE || op == Opcode.REMAINDER || op == Opcode.INTEGRAL_DIVIDE;
      require(division || op == Opcode.ADD || op == Opcode.SUBTRACT || op == Opcode.MULTIPLY, "arithmetic " + op);
      DeviceType left = peek(division ? 0 : 1);
      DeviceType right = peek(division ? 1 : 0);
      Kind kind = left.kind();
      if (kind == Kind.DECIMAL128 || result.kind() == Kind.DECIMAL128) {
        require(leftDigits <= left.precision() && rightDigits <= right.precision(),
            op + " of values of " + leftDigits + " and " + rightDigits + " digits typed " + left + " and " + right);
        return emit(op, kind.ordinal(), mode.ordinal(),
            wideDecimalScales(op, left, right, result, leftDigits, rightDigits), 2, List.of(left, right),
            result);
      }
      require(NUMERIC.contains(kind) && kind == right.kind(), op + " of " + left + " and " + right);
      if (op == Opcode.DIVIDE) require(kind == Kind.DECIMAL || FLOATING.contains(kind), "DIVIDE of " + left);
      if (op == Opcode.INTEGRAL_DIVIDE) {
        require(kind == Kind.LONG || kind == Kind.DECIMAL, "INTEGRAL_DIVIDE of " + left);
        require(result.equals(DeviceType.LONG), "INTEGRAL_DIVIDE to " + result);
      } else if (kind != Kind.DECIMAL) {
        require(result.equals(left) && left.equals(right), op + " of " + left + " and " + right + " to " + result);
      }
      int scales = kind == Kind.DECIMAL ? decimalScales(op, left, right, result) : 0;
      return emit(op, kind.ordinal(), mode.ordinal(), scales, 2, List.of(left, right), result);
    }

    /** Whether every value of {@code from} (an integer or a decimal) fits decimal {@code to}, rounding included. */
    private static boolean alwaysFits(DeviceType from, DeviceType to) {
      int integerDigits = switch (from.kind()) {
        case BYTE -> 3;
        case SHORT -> 5;
        case INT -> 10;
        case LONG -> 19;
        default -> from.precision() - from.scale();
      };
      // rounding digits away may carry into one more integer digit
      return to.precision() - to.scale() >= integerDigits + (to.scale() < from.scale() ? 1 : 0);
    }

    /**
     * The rules of the 128-bit decimal arithmetic the device evaluates exactly, for operand values of at most {@code
     * leftDigits} and {@code rightDigits} digits (the dividend's and the divisor's for DIVIDE); returns the packed
     * scales.
     */
    private static int wideDecimalScales(Opcode op, DeviceType l, DeviceType r, DeviceType result, int leftDigits,
        int rightDigits) {
      int s1 = l.scale();
      int s2 = r.scale();
      int p = result.precision();
      int s = result.scale();
      int productDigits = leftDigits + rightDigits;
      require(result.kind() == Kind.DECIMAL128, op + " of " + l + " and " + r + " to " + result);
      if (op == Opcode.MULTIPLY && l.kind() == Kind.DECIMAL) {
        require(r.kind() == Kind.DECIMAL && s == s1 + s2 && p >= l.precision() + r.precision(),
            op + " of " + l + " and " + r + " to " + result);
      } else if (op == Opcode.MULTIPLY) {
        // the 128-bit product is exact; rounding it to a lower scale is too where it cannot leave 128 bits
        require(r.kind() == Kind.DECIMAL128 && s <= s1 + s2
            && (s == s1 + s2 || productDigits <= DeviceType.MAX_WIDE_DECIMAL_PRECISION),
            op + " of " + l + " and " + r + " to " + result);
      } else if (op == Opcode.DIVIDE) {
        // the dividend scaled to the quotient's scale fits 192 bits (57 digits), the divisor scaled 38 digits
        int k = s + s2 - s1;
        require(l.kind() == Kind.DECIMAL128 && r.kind() == Kind.DECIMAL128 && leftDigits + Math.max(k, 0) <= 57
            && rightDigits + Math.max(-k, 0) <= DeviceType.MAX_WIDE_DECIMAL_PRECISION,
            op + " of " + l + " and " + r + " to " + result);
      } else {
        int common = Math.max(s1, s2);
        require((op == Opcode.ADD || op == Opcode.SUBTRACT) && l.kind() == Kind.DECIMAL128
            && r.kind() == Kind.DECIMAL128 && s == common
            && p > Math.max(l.precision() - s1, r.precision() - s2) + common,
            op + " of " + l + " and " + r + " to " + result);
      }
      return s1 | s2 << 8 | p << 16 | s << 24;
    }

    /** Checks Spark's decimal result rules that the exact int64 evaluation relies on; returns the packed scales. */
    private static int decimalScales(Opcode op, DeviceType l, DeviceType r, DeviceType result) {
      int s1 = l.scale();
      int s2 = r.scale();
      int common = Math.max(s1, s2);
      boolean fits = l.precision() - s1 + common <= 18 && r.precision() - s2 + common <= 18;
      int p = 0;
      int s = 0;
      if (op != Opcode.INTEGRAL_DIVIDE) {
        require(result.kind() == Kind.DECIMAL, op + " of decimals to " + result);
        p = result.precision();
        s = result.scale();
      }
      switch (op) {
        case ADD, SUBTRACT, REMAINDER, INTEGRAL_DIVIDE -> require(fits && (op == Opcode.INTEGRAL_DIVIDE || s == common),
            op + " of " + l + " and " + r + " to " + result + " (operands at the common scale must fit 18 digits)");
        case MULTIPLY -> require(s == s1 + s2, op + " of " + l + " and " + r + " to " + result);
        case DIVIDE -> require(s + s2 - s1 >= 0 && l.precision() + s + s2 - s1 <= 18,
            op + " of " + l + " and " + r + " to " + result + " (the scaled dividend must fit 18 digits)");
        default -> throw new IllegalArgumentException("decimal " + op);
      }
      return s1 | s2 << 8 | p << 16 | s << 24;
    }

    /** Pops a number and pushes its negation (integers: MIN_VALUE wraps, or overflows in ANSI mode). */
    public Builder negate(EvalMode mode) {
      DeviceType type = peek(0);
      // Spark negates a wide decimal through Scala's BigDecimal, rounding it to 34 digits (MathContext.DECIMAL128)
      require(NUMERIC.contains(type.kind()) || type.kind() == Kind.DECIMAL128 && type.precision() <= 34,
          "NEGATE of " + type);
      return emit(Opcode.NEGATE, type.kind().ordinal(), mode.ordinal(), 0, 1, type);
    }

    /** Pops a date and pushes its {@code field} as an int. */
    public Builder dateField(DateField field) {
      require(peek(0).kind() == Kind.DATE, "DATE_FIELD of " + peek(0));
      return emit(Opcode.DATE_FIELD, field.ordinal(), 0, 0, 1, DeviceType.INT);
    }

    /**
     * Pops a value and pushes it cast to {@code to} with Spark's Cast: among boolean, integers, floats and decimals
     * (not floats to decimals; decimals to double only up to precision 15 and to float up to 7, where Java's
     * BigDecimal conversion is one correctly rounded division), and between dates and timestamps in UTC; to a 128-bit
     * decimal from integers and decimals, and from one to any decimal.
     */
    public Builder cast(DeviceType to, EvalMode mode) {
      DeviceType from = peek(0);
      Kind f = from.kind();
      Kind t = to.kind();
      boolean numeric = (NUMERIC.contains(f) || f == Kind.BOOLEAN) && (NUMERIC.contains(t) || t == Kind.BOOLEAN);
      boolean ok = numeric && !(FLOATING.contains(f) && t == Kind.DECIMAL) && (f != t || f == Kind.DECIMAL)
          && !(f == Kind.DECIMAL && t == Kind.DOUBLE && from.precision() > 15)
          && !(f == Kind.DECIMAL && t == Kind.FLOAT && from.precision() > 7);
      ok |= (f == Kind.DATE && t == Kind.TIMESTAMP) || (f == Kind.TIMESTAMP && t == Kind.DATE);
      // 128-bit decimals: from integers and decimals, to decimals
      ok |= (t == Kind.DECIMAL128 && (INTEGRAL.contains(f) || f == Kind.DECIMAL || f == Kind.DECIMAL128))
          || (f == Kind.DECIMAL128 && t == Kind.DECIMAL);
      require(ok, "a cast from " + from + " to " + to);
      // an overflow error carries 64-bit operands: a 128-bit cast raises none, so in ANSI mode it must not overflow
      require(mode != EvalMode.ANSI || (f != Kind.DECIMAL128 && t != Kind.DECIMAL128) || alwaysFits(from, to),
          "an ANSI cast from " + from + " to " + to + " that can overflow");
      return emit(Opcode.CAST, f.ordinal(), t.ordinal(),
          mode.ordinal() | from.scale() << 8 | to.precision() << 16 | to.scale() << 24, 1, List.of(from), to);
    }

    // ---- Control ----

    public Label newLabel() {
      Label label = new Label();
      labels.add(label);
      return label;
    }

    /** Jumps unconditionally; the code after it is unreachable until a label is bound. */
    public Builder jump(Label target) {
      jumpTo(Opcode.JUMP, target, 0, 0, List.copyOf(reachable()));
      stack = null;
      return this;
    }

    /** Pops a boolean and jumps unless it is true. */
    public Builder jumpIfNotTrue(Label target) {
      requireBoolean(1);
      stack.remove(stack.size() - 1);
      return jumpTo(Opcode.JUMP_IF_NOT_TRUE, target, 0, 0, List.copyOf(stack));
    }

    /**
     * Jumps when the top is null, keeping it: the null result of a null-intolerant operator whose other operand is
     * then never evaluated (Spark does not evaluate it either, so its errors are not raised).
     */
    public Builder jumpIfNull(Label target) {
      peek(0);
      return jumpTo(Opcode.JUMP_IF_NULL, target, 0, 0, List.copyOf(stack));
    }

    /** Jumps when the top is a non-null false, keeping it (AND's short circuit). */
    public Builder jumpIfFalse(Label target) {
      requireBoolean(1);
      return jumpTo(Opcode.JUMP_IF_FALSE, target, 0, 0, List.copyOf(stack));
    }

    /** Jumps when the top is a non-null true, keeping it (OR's short circuit). */
    public Builder jumpIfTrue(Label target) {
      requireBoolean(1);
      return jumpTo(Opcode.JUMP_IF_TRUE, target, 0, 0, List.copyOf(stack));
    }

    /** Jumps when the top is not null, keeping it; otherwise pops it (Coalesce). */
    public Builder coalesceJump(Label target) {
      peek(0);
      jumpTo(Opcode.COALESCE_JUMP, target, 0, 0, List.copyOf(stack));
      stack.remove(stack.size() - 1);
      return this;
    }

    /**
     * With the divisor on top: when it is null, or zero outside ANSI mode, replaces it with null and jumps past the
     * dividend and the division to {@code target}, as Spark skips the dividend then.
     */
    public Builder divisorCheck(Label target, EvalMode mode) {
      DeviceType divisor = peek(0);
      require(NUMERIC.contains(divisor.kind()) || divisor.kind() == Kind.DECIMAL128, "a divisor of " + divisor);
      return jumpTo(Opcode.DIVISOR_CHECK, target, divisor.kind().ordinal(), mode.ordinal(), List.copyOf(stack));
    }

    private Builder jumpTo(Opcode op, Label target, int b, int c, List<DeviceType> stackAtTarget) {
      require(!target.bound, "a backward jump");
      if (target.stack == null) {
        target.stack = stackAtTarget;
      } else {
        require(target.stack.size() == stackAtTarget.size(), "jumps to one label with different stack depths");
      }
      target.jumps.add(words.size());
      return append(op, new int[] {op.ordinal(), -1, b, c}, List.of(), null);
    }

    /** Makes {@code label} the next instruction. */
    public Builder bind(Label label) {
      require(!label.bound, "a label bound twice");
      require(label.stack != null, "a label nothing jumps to");
      if (stack == null) {
        stack = new ArrayList<>(label.stack);
      } else {
        require(stack.size() == label.stack.size(), "a label reached with stack depths " + stack.size() + " and "
            + label.stack.size());
      }
      for (int jump : label.jumps) words.get(jump)[1] = words.size();
      label.bound = true;
      return this;
    }

    /** The index the next instruction will have: how callers map a failing instruction back to its source. */
    public int nextInstruction() {
      return words.size();
    }

    // ---- Outputs ----

    /** Pops the top into the next output column (not strings or binaries: see {@link #passThrough}). */
    public Builder output() {
      DeviceType type = peek(0);
      require(!type.isVariableWidth(), "a computed " + type + " output (only pass-through columns hold bytes)");
      outputs.add(new Output(type, -1));
      return emit(Opcode.OUTPUT, outputs.size() - 1, type.kind().ordinal(), 0, 1, null);
    }

    /** Adds an output that is a copy of input column {@code column}, any type; it takes no instructions. */
    public Builder passThrough(int column) {
      outputs.add(new Output(inputTypes.get(column), column));
      return this;
    }

    public ExprProgram build() {
      require(stack != null && stack.isEmpty(), "a program that leaves " + stack + " on the stack");
      for (Label l : labels) require(l.bound, "a label never bound");
      List<Instruction> instructions = new ArrayList<>();
      for (int i = 0; i < words.size(); i++) {
        int[] w = words.get(i);
        instructions.add(new Instruction(ops.get(i), w[1], w[2], w[3], operandTypes.get(i), resultTypes.get(i)));
      }
      long[] pool = literals.stream().mapToLong(Long::longValue).toArray();
      return new ExprProgram(inputTypes, List.copyOf(instructions), pool, bytes.toByteArray(), List.copyOf(outputs),
          maxDepth);
    }

    // ---- Stack model ----

    private Builder emit(Opcode op, int a, int b, int c, int pops, DeviceType result) {
      List<DeviceType> consumed = new ArrayList<>();
      for (int i = pops - 1; i >= 0; i--) consumed.add(peek(i));
      return emit(op, a, b, c, pops, consumed, result);
    }

    private Builder emit(Opcode op, int a, int b, int c, int pops, List<DeviceType> consumed, DeviceType result) {
      List<DeviceType> s = reachable();
      for (int i = 0; i < pops; i++) s.remove(s.size() - 1);
      if (result != null && op != Opcode.OUTPUT) {
        s.add(result);
        require(s.size() <= MAX_STACK_DEPTH, "an expression nested deeper than " + MAX_STACK_DEPTH + " stack slots");
        maxDepth = Math.max(maxDepth, s.size());
      }
      return append(op, new int[] {op.ordinal(), a, b, c}, List.copyOf(consumed), result);
    }

    private Builder append(Opcode op, int[] w, List<DeviceType> consumed, DeviceType result) {
      reachable();
      ops.add(op);
      words.add(w);
      operandTypes.add(consumed);
      resultTypes.add(result);
      return this;
    }

    private List<DeviceType> reachable() {
      require(stack != null, "unreachable code after a jump (bind a label first)");
      return stack;
    }

    /** The type {@code depth} slots below the top. */
    private DeviceType peek(int depth) {
      List<DeviceType> s = reachable();
      require(s.size() > depth, "an instruction that needs " + (depth + 1) + " values on a stack of " + s.size());
      return s.get(s.size() - 1 - depth);
    }

    private void requireBoolean(int count) {
      for (int i = 0; i < count; i++) require(peek(i).kind() == Kind.BOOLEAN, "a boolean operator on " + peek(i));
    }

    /** Whether two types hold comparable payloads: one kind, and one scale for decimals. */
    private static boolean sameValues(DeviceType a, DeviceType b) {
      return a.kind() == b.kind() && a.scale() == b.scale();
    }

    private static void require(boolean ok, String what) {
      if (!ok) throw new IllegalArgumentException("invalid expression program: " + what);
    }
  }
}
