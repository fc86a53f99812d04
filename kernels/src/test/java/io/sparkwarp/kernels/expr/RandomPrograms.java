package io.sparkwarp.kernels.expr;

import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.batch.DeviceType.Kind;
import io.sparkwarp.kernels.testing.RandomVectors;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random well-typed programs over given input columns: every opcode, all three modes (mostly LEGACY, so most rows
 * produce values rather than errors), nested conditionals and the short-circuit jumps, decimals of Spark's result
 * types. Expressions are generated top-down for a requested type.
 */
final class RandomPrograms {
  private static final DeviceType[] NUMERIC = {DeviceType.BYTE, DeviceType.SHORT, DeviceType.INT, DeviceType.LONG,
      DeviceType.FLOAT, DeviceType.DOUBLE, DeviceType.decimal(9, 2), DeviceType.decimal(18, 4)};
  private static final DeviceType[] COMPARABLE = {DeviceType.BOOLEAN, DeviceType.INT, DeviceType.LONG,
      DeviceType.DOUBLE, DeviceType.FLOAT, DeviceType.DATE, DeviceType.STRING, DeviceType.BINARY,
      DeviceType.decimal(5, 2), DeviceType.decimal(30, 4)};

  private final Random rnd;
  private final List<DeviceType> inputs;
  private ExprProgram.Builder b;

  RandomPrograms(Random rnd, List<DeviceType> inputs) {
    this.rnd = rnd;
    this.inputs = inputs;
  }

  /** A projection of a few computed outputs of random types and one pass-through column. */
  ExprProgram projection() {
    b = ExprProgram.builder(inputs);
    int outputs = 1 + rnd.nextInt(3);
    for (int i = 0; i < outputs; i++) {
      DeviceType[] types = {DeviceType.BOOLEAN, DeviceType.INT, DeviceType.LONG, DeviceType.DOUBLE, DeviceType.FLOAT,
          DeviceType.SHORT, DeviceType.BYTE, DeviceType.decimal(9, 2), DeviceType.decimal(12, 6), DeviceType.DATE,
          DeviceType.timestamp("UTC"), DeviceType.decimal(30, 4), DeviceType.decimal(37, 8)};
      gen(types[rnd.nextInt(types.length)], 4);
      b.output();
    }
    b.passThrough(rnd.nextInt(inputs.size()));
    return b.build();
  }

  /** A boolean predicate. */
  ExprProgram predicate() {
    b = ExprProgram.builder(inputs);
    gen(DeviceType.BOOLEAN, 4);
    b.output();
    return b.build();
  }

  private EvalMode mode() {
    int r = rnd.nextInt(50);
    return r == 0 ? EvalMode.ANSI : r < 8 ? EvalMode.TRY : EvalMode.LEGACY;
  }

  /** A 128-bit cast may overflow: not in ANSI mode, where its error could not carry the value. */
  private EvalMode wideCastMode() {
    EvalMode mode = mode();
    return mode == EvalMode.ANSI ? EvalMode.TRY : mode;
  }

  private void gen(DeviceType type, int depth) {
    if (depth <= 0 || rnd.nextInt(4) == 0) {
      leaf(type);
      return;
    }
    if (rnd.nextInt(8) == 0) {
      conditional(type, depth);
      return;
    }
    switch (type.kind()) {
      case BOOLEAN -> bool(depth);
      case DATE -> {
        gen(DeviceType.timestamp("UTC"), depth - 1);
        b.cast(type, mode());
      }
      case TIMESTAMP -> {
        gen(DeviceType.DATE, depth - 1);
        b.cast(type, mode());
      }
      case DECIMAL -> decimal(type, depth);
      case DECIMAL128 -> wideDecimal(type, depth);
      case STRING, BINARY -> leaf(type);
      case INT -> {
        if (rnd.nextInt(4) == 0) {  // a field of a date
          gen(DeviceType.DATE, depth - 1);
          b.dateField(DateField.values()[rnd.nextInt(DateField.values().length)]);
        } else {
          number(type, depth);
        }
      }
      default -> number(type, depth);
    }
  }

  private void leaf(DeviceType type) {
    List<Integer> columns = new ArrayList<>();
    for (int i = 0; i < inputs.size(); i++) {
      if (inputs.get(i).equals(type)) columns.add(i);
    }
    int r = rnd.nextInt(20);
    if (!columns.isEmpty() && r < 14) {
      b.column(columns.get(rnd.nextInt(columns.size())));
    } else if (r == 19) {
      b.nullLiteral(type);
    } else {
      literal(type);
    }
  }

  private void literal(DeviceType type) {
    switch (type.kind()) {
      case FLOAT -> b.literal(type, (double) (float) (rnd.nextGaussian() * 100));
      case DOUBLE -> b.literal(type, rnd.nextInt(10) == 0 ? Double.NaN : rnd.nextGaussian() * 1e6);
      case STRING -> b.literal(type, RandomVectors.randomString(rnd, 6, rnd.nextBoolean()));
      case BINARY -> {
        byte[] bytes = new byte[rnd.nextInt(4)];
        rnd.nextBytes(bytes);
        b.literal(type, bytes);
      }
      case DECIMAL128 -> {
        java.math.BigInteger x = new java.math.BigInteger(type.precision() * 3, rnd)
            .mod(java.math.BigInteger.TEN.pow(type.precision()));
        if (rnd.nextBoolean()) x = x.negate();
        b.literal128(type, x.longValue(), x.shiftRight(64).longValue());
      }
      default -> b.literal(type, longValue(type));
    }
  }

  private long longValue(DeviceType type) {
    return switch (type.kind()) {
      case BOOLEAN -> rnd.nextInt(2);
      case BYTE -> (byte) rnd.nextInt();
      case SHORT -> (short) rnd.nextInt();
      case INT, DATE -> rnd.nextInt(5) == 0 ? rnd.nextInt() : rnd.nextInt(200) - 100;
      case DECIMAL -> rnd.nextLong() % (long) Math.pow(10, type.precision());
      default -> rnd.nextInt(3) == 0 ? rnd.nextLong() : rnd.nextInt(2000) - 1000;
    };
  }

  private void bool(int depth) {
    switch (rnd.nextInt(7)) {
      case 0, 1 -> {
        DeviceType t = COMPARABLE[rnd.nextInt(COMPARABLE.length)];
        gen(t, depth - 1);
        gen(t, depth - 1);
        b.compare(Comparison.values()[rnd.nextInt(Comparison.values().length)]);
      }
      case 2 -> shortCircuit(depth, rnd.nextBoolean());
      case 3 -> {
        gen(DeviceType.BOOLEAN, depth - 1);
        b.not();
      }
      case 4 -> {
        gen(NUMERIC[rnd.nextInt(NUMERIC.length)], depth - 1);
        if (rnd.nextBoolean()) b.isNull();
        else b.isNotNull();
      }
      default -> in(depth);
    }
  }

  /** l AND r / l OR r, with the short-circuit jump Spark's evaluation order needs. */
  private void shortCircuit(int depth, boolean or) {
    ExprProgram.Label end = b.newLabel();
    gen(DeviceType.BOOLEAN, depth - 1);
    if (or) b.jumpIfTrue(end);
    else b.jumpIfFalse(end);
    gen(DeviceType.BOOLEAN, depth - 1);
    if (or) b.or();
    else b.and();
    b.bind(end);
  }

  private void in(int depth) {
    DeviceType t = COMPARABLE[rnd.nextInt(COMPARABLE.length)];
    if (t.kind() == Kind.DECIMAL128) t = DeviceType.decimal(5, 2);  // IN compares 64-bit literals
    gen(t, depth - 1);
    List<Object> values = new ArrayList<>();
    int n = 1 + rnd.nextInt(4);
    for (int i = 0; i < n; i++) {
      switch (t.kind()) {
        case FLOAT -> values.add((double) (float) (rnd.nextInt(5) - 2));
        case DOUBLE -> values.add(rnd.nextInt(4) == 0 ? Double.NaN : rnd.nextInt(5) - 2.0);
        case STRING -> values.add(RandomVectors.randomString(rnd, 3, rnd.nextBoolean()));
        case BINARY -> values.add(new byte[] {(byte) rnd.nextInt(3)});
        default -> values.add(longValue(t) % 3);
      }
    }
    b.in(values, rnd.nextInt(4) == 0);
  }

  /** If, CaseWhen (two branches) or Coalesce producing {@code type}. */
  private void conditional(DeviceType type, int depth) {
    ExprProgram.Label end = b.newLabel();
    boolean noCast = type.kind() == Kind.DATE || type.kind() == Kind.TIMESTAMP || type.isVariableWidth()
        || type.kind() == Kind.DECIMAL128;
    switch (rnd.nextInt(noCast ? 2 : 3)) {
      case 0 -> {
        for (int branch = 0; branch < 2; branch++) {
          ExprProgram.Label next = b.newLabel();
          gen(DeviceType.BOOLEAN, depth - 1);
          b.jumpIfNotTrue(next);
          gen(type, depth - 1);
          b.jump(end);
          b.bind(next);
        }
        gen(type, depth - 1);
      }
      case 1 -> {
        gen(type, depth - 1);
        b.coalesceJump(end);
        gen(type, depth - 1);
        b.coalesceJump(end);
        gen(type, depth - 1);
      }
      default -> {
        // a null-intolerant operator that skips its right operand when the left one is null
        gen(type, depth - 1);
        b.jumpIfNull(end);
        gen(type, depth - 1);
        if (type.kind() == Kind.BOOLEAN) b.and();
        else b.compare(Comparison.EQ_NULL_SAFE).cast(type, EvalMode.LEGACY);
      }
    }
    b.bind(end);
  }

  private void number(DeviceType type, int depth) {
    Kind k = type.kind();
    boolean floating = k == Kind.FLOAT || k == Kind.DOUBLE;
    switch (rnd.nextInt(6)) {
      case 0, 1 -> {
        gen(type, depth - 1);
        gen(type, depth - 1);
        Opcode[] ops = {Opcode.ADD, Opcode.SUBTRACT, Opcode.MULTIPLY};
        b.arithmetic(ops[rnd.nextInt(3)], type, mode());
      }
      case 2 -> {
        if (k == Kind.LONG && rnd.nextBoolean()) {
          division(rnd.nextBoolean() ? type : DeviceType.decimal(9, 2), Opcode.INTEGRAL_DIVIDE, type, depth);
        } else {
          division(type, floating && rnd.nextBoolean() ? Opcode.DIVIDE : Opcode.REMAINDER, type, depth);
        }
      }
      case 3 -> {
        gen(type, depth - 1);
        b.negate(mode());
      }
      default -> {
        DeviceType from = NUMERIC[rnd.nextInt(NUMERIC.length)];
        if (from.equals(type) || from.kind() == Kind.DECIMAL && from.precision() > 7 && k == Kind.FLOAT
            || from.kind() == Kind.DECIMAL && from.precision() > 15 && k == Kind.DOUBLE) {
          from = DeviceType.BOOLEAN;
        }
        gen(from, depth - 1);
        b.cast(type, mode());
      }
    }
  }

  /** divisor first, its check when the dividend could raise errors, then the dividend and the division. */
  private void division(DeviceType operands, Opcode op, DeviceType result, int depth) {
    EvalMode mode = mode();
    gen(operands, depth - 1);
    ExprProgram.Label skip = rnd.nextBoolean() ? b.newLabel() : null;
    if (skip != null) b.divisorCheck(skip, mode);
    gen(operands, depth - 1);
    b.arithmetic(op, result, mode);
    if (skip != null) b.bind(skip);
  }

  /**
   * A 128-bit decimal: the product of two decimals of up to 18 digits or of two wide ones, a sum or difference of
   * two wide ones, a cast of a narrower or wider decimal or an integer, a negation (up to 34 digits).
   */
  private void wideDecimal(DeviceType type, int depth) {
    int p = type.precision();
    int s = type.scale();
    switch (rnd.nextInt(7)) {
      case 0 -> {
        int s1 = s / 2;
        int p1 = Math.min(18, Math.max(s1 + 1, p / 2));
        int p2 = Math.min(18, p - p1);
        gen(DeviceType.decimal(p1, s1), depth - 1);
        gen(DeviceType.decimal(p2, s - s1), depth - 1);
        b.arithmetic(Opcode.MULTIPLY, type, mode());
      }
      case 1 -> {
        if (p - 1 <= DeviceType.MAX_DECIMAL_PRECISION) {  // the operands of a wide sum are wide
          leaf(type);
          return;
        }
        DeviceType operand = DeviceType.decimal(p - 1, s);
        gen(operand, depth - 1);
        gen(operand, depth - 1);
        b.arithmetic(rnd.nextBoolean() ? Opcode.ADD : Opcode.SUBTRACT, type, mode());
      }
      case 2 -> {
        DeviceType[] from = {DeviceType.decimal(18, 4), DeviceType.decimal(30, 4), DeviceType.decimal(37, 8),
            DeviceType.LONG, DeviceType.INT};
        gen(from[rnd.nextInt(from.length)], depth - 1);
        b.cast(type, wideCastMode());
      }
      case 3 -> {
        if (p <= 34) {
          gen(type, depth - 1);
          b.negate(mode());
        } else {
          leaf(type);
        }
      }
      case 4 -> {
        // two wide factors of 19 digits: the exact product, or (38 digits) rounded one place as Spark lowers the
        // scale; outside LEGACY mode only where no product overflows (the builder refuses the others)
        EvalMode m = mode();
        int target = p == 38 && rnd.nextBoolean() ? s + 1 : s;
        int s1 = Math.min(19, (target + 1) / 2);
        int s2 = target - s1;
        if (s2 < 0 || s2 > 19 || m != EvalMode.LEGACY && 38 - (target - s) > p) {
          leaf(type);
          return;
        }
        gen(DeviceType.decimal(19, s1), depth - 1);
        gen(DeviceType.decimal(19, s2), depth - 1);
        b.arithmetic(Opcode.MULTIPLY, type, m);
      }
      case 5 -> {
        // a quotient of two wide decimals, where the dividend scaled to the result fits 57 digits
        int p1 = 19 + rnd.nextInt(20);
        int p2 = 19 + rnd.nextInt(20);
        int s1 = rnd.nextInt(Math.min(p1, 24) + 1);
        int s2 = rnd.nextInt(Math.min(p2, 12) + 1);
        int k = s + s2 - s1;
        if (p1 + Math.max(k, 0) > 57 || p2 + Math.max(-k, 0) > 38) {
          leaf(type);
          return;
        }
        EvalMode mode = mode();
        gen(DeviceType.decimal(p2, s2), depth - 1);
        ExprProgram.Label skip = rnd.nextBoolean() ? b.newLabel() : null;
        if (skip != null) b.divisorCheck(skip, mode);
        gen(DeviceType.decimal(p1, s1), depth - 1);
        b.arithmetic(Opcode.DIVIDE, type, mode);
        if (skip != null) b.bind(skip);
      }
      default -> leaf(type);
    }
  }

  private void decimal(DeviceType type, int depth) {
    int p = type.precision();
    int s = type.scale();
    switch (rnd.nextInt(4)) {
      case 0 -> {
        if (p - 1 > s) {
          DeviceType operand = DeviceType.decimal(p - 1, s);
          gen(operand, depth - 1);
          gen(operand, depth - 1);
          b.arithmetic(rnd.nextBoolean() ? Opcode.ADD : Opcode.SUBTRACT, type, mode());
          return;
        }
      }
      case 1 -> {
        int s1 = s / 2;
        int p1 = Math.max(1, Math.max(s1, (p - 1) / 2));
        int p2 = p - 1 - p1;
        if (p2 >= 1 && p2 >= s - s1) {
          gen(DeviceType.decimal(p1, s1), depth - 1);
          gen(DeviceType.decimal(p2, s - s1), depth - 1);
          b.arithmetic(Opcode.MULTIPLY, type, mode());
          return;
        }
      }
      case 2 -> {
        // Spark: decimal(p1, s1) / decimal(p2, 0) has scale max(6, s1 + p2 + 1) and precision p1 - s1 + scale
        int p2 = 1 + rnd.nextInt(2);
        int s1 = s - p2 - 1;
        int p1 = p - s + s1;
        if (s >= 6 && s1 >= 0 && p1 >= Math.max(1, s1) && p1 <= 18) {
          division(DeviceType.decimal(p1, s1), Opcode.DIVIDE, type, depth);
          return;
        }
      }
      default -> {
        if (rnd.nextBoolean()) {
          division(type, Opcode.REMAINDER, type, depth);
          return;
        }
      }
    }
    DeviceType[] sources = {DeviceType.INT, DeviceType.LONG, DeviceType.BOOLEAN, DeviceType.decimal(5, 2),
        DeviceType.decimal(18, 4), DeviceType.decimal(30, 4)};
    DeviceType source = sources[rnd.nextInt(sources.length)];
    gen(source, depth - 1);
    b.cast(type, source.kind() == Kind.DECIMAL128 ? wideCastMode() : mode());
  }
}
