package io.sparkwarp.kernels.expr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reference interpreter, one opcode family at a time, against hand-computed Spark results. */
class HostExpressionsTest extends ExprTestBase {
  private static final DeviceType INT = DeviceType.INT;
  private static final DeviceType LONG = DeviceType.LONG;
  private static final DeviceType DOUBLE = DeviceType.DOUBLE;
  private static final DeviceType BOOL = DeviceType.BOOLEAN;

  @Override
  protected BackendKind kind() {
    return BackendKind.HOST;
  }

  private static ExprProgram.Builder over(DeviceType... inputs) {
    return ExprProgram.builder(List.of(inputs));
  }

  /** column 0 (cmp) column 1. */
  private List<Object> compare(DeviceType type, Comparison cmp, DeviceBatch b) {
    return eval(over(type, type).column(0).column(1).compare(cmp).output().build(), b);
  }

  @Test
  void integerComparisonsPropagateNullsExceptNullSafeEquality() {
    try (DeviceBatch b = batch(vector(INT, 1, null, 3, null), vector(INT, 2, 2, 3, null))) {
      assertEquals(list(true, null, false, null), compare(INT, Comparison.LT, b));
      assertEquals(list(false, null, true, null), compare(INT, Comparison.GE, b));
      assertEquals(list(false, false, true, true), compare(INT, Comparison.EQ_NULL_SAFE, b));
    }
  }

  @Test
  void doublesCompareLikeSpark() {
    double nan = Double.NaN;
    try (DeviceBatch b = batch(vector(DOUBLE, nan, nan, -0.0, Double.POSITIVE_INFINITY, 1.0),
        vector(DOUBLE, nan, Double.POSITIVE_INFINITY, 0.0, nan, 2.0))) {
      assertEquals(list(true, false, true, false, false), compare(DOUBLE, Comparison.EQ, b));
      assertEquals(list(false, true, false, false, false), compare(DOUBLE, Comparison.GT, b));
      assertEquals(list(false, false, false, true, true), compare(DOUBLE, Comparison.LT, b));
    }
  }

  @Test
  void stringsCompareByUnsignedBytes() {
    DeviceType s = DeviceType.STRING;
    try (DeviceBatch b = batch(vector(s, "", "a", "ä", "日本", "ab", "😀"), vector(s, "a", "ä", "日", "日本", "a", "\uffff"))) {
      assertEquals(list(true, true, true, false, false, false), compare(s, Comparison.LT, b));
      assertEquals(list(false, false, false, true, false, false), compare(s, Comparison.EQ, b));
    }
    DeviceType bin = DeviceType.BINARY;
    try (DeviceBatch b = batch(vector(bin, new byte[] {0x7f}, new byte[] {}), vector(bin, new byte[] {(byte) 0x80},
        new byte[] {0}))) {
      assertEquals(list(true, true), compare(bin, Comparison.LT, b));
    }
  }

  @Test
  void logicIsThreeValued() {
    Object[] l = {true, true, true, false, false, false, null, null, null};
    Object[] r = {true, false, null, true, false, null, true, false, null};
    try (DeviceBatch b = batch(vector(BOOL, l), vector(BOOL, r))) {
      assertEquals(list(true, false, null, false, false, false, null, false, null),
          eval(over(BOOL, BOOL).column(0).column(1).and().output().build(), b));
      assertEquals(list(true, true, true, true, false, null, true, null, null),
          eval(over(BOOL, BOOL).column(0).column(1).or().output().build(), b));
      assertEquals(list(false, false, false, true, true, true, null, null, null),
          eval(over(BOOL, BOOL).column(0).not().output().build(), b));
      assertEquals(list(false, false, false, false, false, false, true, true, true),
          eval(over(BOOL, BOOL).column(0).isNull().output().build(), b));
    }
  }

  @Test
  void inListsFollowSqlNullRules() {
    try (DeviceBatch b = batch(vector(INT, 1, 5, null))) {
      assertEquals(list(true, false, null), eval(over(INT).column(0).in(List.of(1L, 2L), false).output().build(), b));
      assertEquals(list(true, null, null), eval(over(INT).column(0).in(List.of(1L, 2L), true).output().build(), b));
    }
    try (DeviceBatch b = batch(vector(DOUBLE, Double.NaN, -0.0, 1.5))) {
      assertEquals(list(true, true, false),
          eval(over(DOUBLE).column(0).in(List.of(Double.NaN, 0.0), false).output().build(), b));
    }
    try (DeviceBatch b = batch(vector(DeviceType.STRING, "日本", "", "x"))) {
      List<byte[]> values = List.of("日本".getBytes(StandardCharsets.UTF_8), new byte[0]);
      assertEquals(list(true, true, false),
          eval(over(DeviceType.STRING).column(0).in(values, false).output().build(), b));
    }
  }

  private ExprProgram binary(DeviceType type, Opcode op, EvalMode mode) {
    return over(type, type).column(0).column(1).arithmetic(op, type, mode).output().build();
  }

  @Test
  void integersWrapOrOverflow() {
    try (DeviceBatch b = batch(vector(INT, Integer.MAX_VALUE, 7, null), vector(INT, 1, -2, 1))) {
      assertEquals(list(Integer.MIN_VALUE, 5, null), eval(binary(INT, Opcode.ADD, EvalMode.LEGACY), b));
      assertEquals(list(null, 5, null), eval(binary(INT, Opcode.ADD, EvalMode.TRY), b));
      ExpressionErrorException e = assertThrows(ExpressionErrorException.class,
          () -> eval(binary(INT, Opcode.ADD, EvalMode.ANSI), b));
      assertEquals(ExpressionErrorException.Kind.ARITHMETIC_OVERFLOW, e.kind());
      assertEquals(0, e.row());
      assertEquals(List.of(Integer.MAX_VALUE, 1), e.operands());
      assertEquals(Opcode.ADD, e.instruction().op());
    }
    DeviceType bt = DeviceType.BYTE;
    try (DeviceBatch b = batch(vector(bt, (byte) 100, (byte) -128), vector(bt, (byte) 2, (byte) 1))) {
      assertEquals(list((byte) -56, (byte) -128), eval(binary(bt, Opcode.MULTIPLY, EvalMode.LEGACY), b));
      assertEquals(list((byte) -98, (byte) -127),
          eval(over(bt, bt).column(1).column(0).arithmetic(Opcode.SUBTRACT, bt, EvalMode.LEGACY).output().build(), b));
      assertEquals(list((byte) -100, (byte) -128),
          eval(over(bt, bt).column(0).negate(EvalMode.LEGACY).output().build(), b));
      assertThrows(ExpressionErrorException.class,
          () -> eval(over(bt, bt).column(0).negate(EvalMode.ANSI).output().build(), b));
    }
  }

  /** dividend (column 0) op divisor (column 1), the divisor evaluated first. */
  private ExprProgram division(DeviceType type, DeviceType result, Opcode op, EvalMode mode) {
    return over(type, type).column(1).column(0).arithmetic(op, result, mode).output().build();
  }

  @Test
  void divisionByZeroIsNullOrAnError() {
    try (DeviceBatch b = batch(vector(DOUBLE, 1.0, 1.0, -7.5, null), vector(DOUBLE, 0.0, -0.0, 2.0, 0.0))) {
      assertEquals(list(null, null, -3.75, null), eval(division(DOUBLE, DOUBLE, Opcode.DIVIDE, EvalMode.LEGACY), b));
      assertEquals(list(null, null, -1.5, null), eval(division(DOUBLE, DOUBLE, Opcode.REMAINDER, EvalMode.LEGACY), b));
      ExpressionErrorException e = assertThrows(ExpressionErrorException.class,
          () -> eval(division(DOUBLE, DOUBLE, Opcode.DIVIDE, EvalMode.ANSI), b));
      assertEquals(ExpressionErrorException.Kind.DIVIDE_BY_ZERO, e.kind());
    }
    try (DeviceBatch b = batch(vector(LONG, Long.MIN_VALUE, -7L, 7L), vector(LONG, -1L, 2L, 0L))) {
      assertEquals(list(Long.MIN_VALUE, -3L, null), eval(division(LONG, LONG, Opcode.INTEGRAL_DIVIDE,
          EvalMode.LEGACY), b));
      assertEquals(list(0L, -1L, null), eval(division(LONG, LONG, Opcode.REMAINDER, EvalMode.LEGACY), b));
      ExpressionErrorException e = assertThrows(ExpressionErrorException.class,
          () -> eval(division(LONG, LONG, Opcode.INTEGRAL_DIVIDE, EvalMode.ANSI), b));
      assertEquals(ExpressionErrorException.Kind.ARITHMETIC_OVERFLOW, e.kind());
    }
  }

  @Test
  void decimalsRoundHalfUpAndOverflowToNull() {
    DeviceType d32 = DeviceType.decimal(3, 2);
    DeviceType d10 = DeviceType.decimal(1, 0);
    try (DeviceBatch b = batch(vector(d32, "1.00", "2.00", "-2.00", "9.99"), vector(d10, "3", "3", "3", "0"))) {
      ExprProgram divide = over(d32, d10).column(1).column(0)
          .arithmetic(Opcode.DIVIDE, DeviceType.decimal(7, 6), EvalMode.LEGACY).output().build();
      assertEquals(list(new BigDecimal("0.333333"), new BigDecimal("0.666667"), new BigDecimal("-0.666667"), null),
          eval(divide, b));
      ExprProgram add = over(d32, d10).column(0).column(1)
          .arithmetic(Opcode.ADD, DeviceType.decimal(4, 2), EvalMode.LEGACY).output().build();
      assertEquals(list(new BigDecimal("4.00"), new BigDecimal("5.00"), new BigDecimal("1.00"),
          new BigDecimal("9.99")), eval(add, b));
      // decimal(3,2) * decimal(1,0) is decimal(5,2) in Spark; narrower results overflow
      ExprProgram times = over(d32, d10).column(0).column(1)
          .arithmetic(Opcode.MULTIPLY, DeviceType.decimal(3, 2), EvalMode.LEGACY).output().build();
      assertEquals(list(new BigDecimal("3.00"), new BigDecimal("6.00"), new BigDecimal("-6.00"),
          new BigDecimal("0.00")), eval(times, b));
      ExprProgram narrow = over(d32, d10).column(0).column(1)
          .arithmetic(Opcode.MULTIPLY, DeviceType.decimal(2, 2), EvalMode.LEGACY).output().build();
      assertEquals(list(null, null, null, new BigDecimal("0.00")), eval(narrow, b));
    }
  }

  @Test
  void wideProductsRoundHalfUpToSparksScaleAndOverflowToNull() {
    DeviceType d1910 = DeviceType.decimal(19, 10);
    DeviceType d3810 = DeviceType.decimal(38, 10);
    try (DeviceBatch b = batch(vector(d1910, "1.0000000005", "-1.0000000005", "999999999.9999999999", null),
        vector(d3810, "2.5000000000", "1.0000000000", "9999999999999999999999999999.0000000000", "1.0000000000"))) {
      // decimal(19,10) * decimal(19,10) is decimal(38,19) in Spark: 20 fractional digits rounded to 19
      ExprProgram square = over(d1910, d3810).column(0).column(0)
          .arithmetic(Opcode.MULTIPLY, DeviceType.decimal(38, 19), EvalMode.ANSI).output().build();
      assertEquals(list(new BigDecimal("1.0000000010000000003"), new BigDecimal("1.0000000010000000003"),
          new BigDecimal("999999999999999999.8000000000000000000"), null), eval(square, b));
      // decimal(19,10) * decimal(38,10) at scale 20 exactly: the last row's product leaves 38 digits (null)
      ExprProgram wide = over(d1910, d3810).column(0).column(1)
          .arithmetic(Opcode.MULTIPLY, DeviceType.decimal(38, 20), EvalMode.LEGACY).output().build();
      assertEquals(list(new BigDecimal("2.50000000125000000000"), new BigDecimal("-1.00000000050000000000"), null,
          null), eval(wide, b));
      // the same where an overflow raises Spark's error, which shows both 128-bit operands
      ExpressionErrorException e = assertThrows(ExpressionErrorException.class, () -> eval(over(d1910, d3810)
          .column(0).column(1).arithmetic(Opcode.MULTIPLY, DeviceType.decimal(38, 20), EvalMode.ANSI).output()
          .build(), b));
      assertEquals(ExpressionErrorException.Kind.DECIMAL_OVERFLOW, e.kind());
      assertEquals(List.of(new BigDecimal("999999999.9999999999"),
          new BigDecimal("9999999999999999999999999999.0000000000")), e.operands());
      // rounding a product that may pass 128 bits: refused
      assertThrows(IllegalArgumentException.class, () -> over(d3810, d3810).column(1).column(1)
          .arithmetic(Opcode.MULTIPLY, DeviceType.decimal(38, 6), EvalMode.LEGACY));
    }
  }

  @Test
  void wideQuotientsRoundAsSparkRoundsThemTwice() {
    DeviceType d3830 = DeviceType.decimal(38, 30);
    DeviceType d190 = DeviceType.decimal(20, 0);
    // 2.999999999E-21 / 2000000000 = 1.4999999995E-30: Spark rounds it to scale 39 (1.5E-30), then to 30 (2E-30),
    // where one rounding would give 1E-30; 2^64 as a divisor has a zero low word and is not zero
    try (DeviceBatch b = batch(
        vector(d3830, "0.000000000000000000002999999999", "-0.000000000000000000002999999999",
            "0.000000000000000000002999999998", "1.000000000000000000000000000000", "5.000000000000000000000000000000",
            null, "1.000000000000000000000000000000"),
        vector(d190, "2000000000", "2000000000", "2000000000", "18446744073709551616", "0", "1", null))) {
      ExprProgram quotient = over(d3830, d190).column(1).column(0)
          .arithmetic(Opcode.DIVIDE, d3830, EvalMode.LEGACY).output().build();
      assertEquals(list(new BigDecimal("2E-30").setScale(30), new BigDecimal("-2E-30").setScale(30),
          new BigDecimal("1E-30").setScale(30), new BigDecimal("5.42101086242752217003726400434970855712890625E-20")
              .setScale(30, java.math.RoundingMode.HALF_UP), null, null, null), eval(quotient, b));
      ExpressionErrorException zero = assertThrows(ExpressionErrorException.class, () -> eval(over(d3830, d190)
          .column(1).column(0).arithmetic(Opcode.DIVIDE, d3830, EvalMode.ANSI).output().build(), b));
      assertEquals(ExpressionErrorException.Kind.DIVIDE_BY_ZERO, zero.kind());
      assertEquals(4, zero.row());
    }
    // a quotient of more than the result's 38 digits: null, or Spark's error with both 128-bit operands
    try (DeviceBatch b = batch(vector(d3830, "1.000000000000000000000000000000", "100.000000000000000000000000000000"),
        vector(d190, "18446744073709551616", "1"))) {
      ExprProgram narrow = over(d3830, d190).column(1).column(0).arithmetic(Opcode.DIVIDE, DeviceType.decimal(38, 37),
          EvalMode.ANSI).output().build();
      ExpressionErrorException overflow = assertThrows(ExpressionErrorException.class, () -> eval(narrow, b));
      assertEquals(ExpressionErrorException.Kind.DECIMAL_OVERFLOW, overflow.kind());
      assertEquals(1, overflow.row());
      assertEquals(List.of(new BigDecimal("100.000000000000000000000000000000"), new BigDecimal("1")),
          overflow.operands());
      // a dividend that scaled to the quotient's scale could pass 192 bits: refused
      DeviceType d380 = DeviceType.decimal(38, 0);
      assertThrows(IllegalArgumentException.class, () -> over(d380, d380).column(1).column(0)
          .arithmetic(Opcode.DIVIDE, DeviceType.decimal(38, 20), EvalMode.LEGACY));
    }
  }

  private List<Object> cast(DeviceType from, DeviceType to, EvalMode mode, DeviceBatch b) {
    return eval(over(from).column(0).cast(to, mode).output().build(), b);
  }

  @Test
  void castsFollowSparkNumericRules() {
    try (DeviceBatch b = batch(vector(DOUBLE, Double.NaN, 1e20, -2.9, -0.0))) {
      assertEquals(list(0, Integer.MAX_VALUE, -2, 0), cast(DOUBLE, INT, EvalMode.LEGACY, b));
      assertEquals(list((short) 0, (short) -1, (short) -2, (short) 0),
          cast(DOUBLE, DeviceType.SHORT, EvalMode.LEGACY, b));
      assertEquals(list(true, true, true, false), cast(DOUBLE, BOOL, EvalMode.LEGACY, b));
      ExpressionErrorException e = assertThrows(ExpressionErrorException.class,
          () -> cast(DOUBLE, INT, EvalMode.ANSI, b));
      assertEquals(ExpressionErrorException.Kind.CAST_OVERFLOW, e.kind());
      assertEquals(0, e.row());
    }
    DeviceType d52 = DeviceType.decimal(5, 2);
    try (DeviceBatch b = batch(vector(d52, "123.45", "-123.45", "1.25", "-1.25", "999.99"))) {
      assertEquals(list(123, -123, 1, -1, 999), cast(d52, INT, EvalMode.LEGACY, b));
      assertEquals(list(new BigDecimal("123.5"), new BigDecimal("-123.5"), new BigDecimal("1.3"),
          new BigDecimal("-1.3"), null), cast(d52, DeviceType.decimal(4, 1), EvalMode.LEGACY, b));
      assertEquals(list(123.45, -123.45, 1.25, -1.25, 999.99), cast(d52, DOUBLE, EvalMode.LEGACY, b));
    }
    try (DeviceBatch b = batch(vector(LONG, 300L, 100L, Long.MIN_VALUE))) {
      assertEquals(list((byte) 44, (byte) 100, (byte) 0), cast(LONG, DeviceType.BYTE, EvalMode.LEGACY, b));
      assertEquals(list(new BigDecimal("300.0"), new BigDecimal("100.0"), null),
          cast(LONG, DeviceType.decimal(4, 1), EvalMode.LEGACY, b));
      assertEquals(list(null, (byte) 100, null), cast(LONG, DeviceType.BYTE, EvalMode.TRY, b));
    }
  }

  @Test
  void datesAndTimestampsConvertInUtc() {
    DeviceType ts = DeviceType.timestamp("UTC");
    try (DeviceBatch b = batch(vector(DeviceType.DATE, 0, -1, Integer.MAX_VALUE))) {
      assertEquals(list(0L, -86_400_000_000L, null), cast(DeviceType.DATE, ts, EvalMode.TRY, b));
      assertThrows(ExpressionErrorException.class, () -> cast(DeviceType.DATE, ts, EvalMode.LEGACY, b));
    }
    try (DeviceBatch b = batch(vector(ts, -1L, 86_400_000_000L))) {
      assertEquals(list(-1, 1), cast(ts, DeviceType.DATE, EvalMode.LEGACY, b));
    }
  }

  @Test
  void conditionalsSkipTheBranchesTheyDoNotTake() {
    // If(c0, 1 div c1, -1) in ANSI mode: the zero divisor of row 1 is never evaluated
    try (DeviceBatch b = batch(vector(BOOL, true, false, null), vector(LONG, 2L, 0L, 0L))) {
      ExprProgram.Builder p = over(BOOL, LONG);
      ExprProgram.Label otherwise = p.newLabel();
      ExprProgram.Label end = p.newLabel();
      p.column(0).jumpIfNotTrue(otherwise).column(1).literal(LONG, 7)
          .arithmetic(Opcode.INTEGRAL_DIVIDE, LONG, EvalMode.ANSI).jump(end)
          .bind(otherwise).literal(LONG, -1).bind(end).output();
      assertEquals(list(3L, -1L, -1L), eval(p.build(), b));
    }
    // Coalesce(c0, c1, 0)
    try (DeviceBatch b = batch(vector(INT, 1, null, null), vector(INT, 2, 3, null))) {
      ExprProgram.Builder p = over(INT, INT);
      ExprProgram.Label end = p.newLabel();
      p.column(0).coalesceJump(end).column(1).coalesceJump(end).literal(INT, 0).bind(end).output();
      assertEquals(list(1, 3, 0), eval(p.build(), b));
    }
    // c0 AND (c1 div 0 = 0) in ANSI mode: false short-circuits, true raises
    try (DeviceBatch b = batch(vector(BOOL, false, null, true), vector(LONG, 1L, 1L, 1L))) {
      ExprProgram.Builder p = over(BOOL, LONG);
      ExprProgram.Label end = p.newLabel();
      ExprProgram.Label skip = p.newLabel();
      p.column(0).jumpIfFalse(end).literal(LONG, 0).divisorCheck(skip, EvalMode.ANSI).column(1)
          .arithmetic(Opcode.INTEGRAL_DIVIDE, LONG, EvalMode.ANSI).bind(skip).literal(LONG, 0).compare(Comparison.EQ)
          .and().bind(end).output();
      ExpressionErrorException e = assertThrows(ExpressionErrorException.class, () -> eval(p.build(), b));
      assertEquals(1, e.row());
      assertEquals(ExpressionErrorException.Kind.DIVIDE_BY_ZERO, e.kind());
    }
  }

  @Test
  void projectionsCopyPassThroughColumnsAndComputeTheRest() {
    try (DeviceBatch b = batch(vector(DeviceType.STRING, "x", null, "日本"), vector(INT, 1, 2, null))) {
      ExprProgram p = over(DeviceType.STRING, INT).passThrough(0).column(1).literal(INT, 10)
          .arithmetic(Opcode.MULTIPLY, INT, EvalMode.LEGACY).output().build();
      List<List<Object>> out = project(p, b);
      assertEquals("[x, null, 日本]", out.get(0).toString());
      assertEquals(list(10, 20, null), out.get(1));
    }
  }

  @Test
  void filtersKeepTrueRowsOfEveryColumn() {
    try (DeviceBatch b = batch(vector(INT, 1, 5, null, 7, 2), vector(DeviceType.STRING, "a", "", "c", null, "é"),
        vector(BOOL, true, false, null, true, false))) {
      ExprProgram p = over(INT, DeviceType.STRING, BOOL).column(0).literal(INT, 1).compare(Comparison.GT).output()
          .build();
      try (DeviceBatch kept = backend.expressions().filter(p, b, stream)) {
        List<List<Object>> v = values(kept);
        assertEquals(list(5, 7, 2), v.get(0));
        assertEquals("[, null, é]", v.get(1).toString());
        assertEquals(list(false, true, false), v.get(2));
      }
    }
  }

  @Test
  void emptyBatchesGiveEmptyResults() {
    try (DeviceBatch b = batch(vector(INT), vector(DeviceType.STRING))) {
      ExprProgram p = over(INT, DeviceType.STRING).column(0).literal(INT, 1).compare(Comparison.GT).output().build();
      assertEquals(list(), eval(p, b));
      try (DeviceBatch kept = backend.expressions().filter(p, b, stream)) {
        assertEquals(0, kept.rowCount());
        assertEquals(2, kept.columnCount());
      }
    }
  }

  @Test
  void builderRejectsIllTypedPrograms() {
    assertThrows(IllegalArgumentException.class, () -> over(DeviceType.STRING).column(0).output());
    assertThrows(IllegalArgumentException.class, () -> over(INT, LONG).column(0).column(1).compare(Comparison.EQ));
    assertThrows(IllegalArgumentException.class, () -> over(INT).column(0).and());
    assertThrows(IllegalArgumentException.class, () -> over(DOUBLE).column(0).cast(DeviceType.decimal(10, 2),
        EvalMode.LEGACY));
    assertThrows(IllegalArgumentException.class, () -> over(DeviceType.decimal(18, 2)).column(0).cast(DOUBLE,
        EvalMode.LEGACY));
    ExprProgram.Builder deep = over(INT);
    for (int i = 0; i < ExprProgram.MAX_STACK_DEPTH; i++) deep.column(0);
    assertThrows(IllegalArgumentException.class, () -> deep.column(0));
    try (DeviceBatch b = batch(vector(LONG, 1L))) {
      ExprProgram p = over(INT).column(0).output().build();
      assertThrows(IllegalArgumentException.class, () -> backend.expressions().project(p, b, stream));
    }
  }
}
