package io.sparkwarp.plugin.expr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.expr.ExprProgram;
import io.sparkwarp.kernels.expr.Opcode;
import io.sparkwarp.strings.ColumnSubstring;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.Add;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.Divide;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.EvalMode;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GreaterThan;
import org.apache.spark.sql.catalyst.expressions.If;
import org.apache.spark.sql.catalyst.expressions.Like;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.NumericEvalContext;
import org.apache.spark.sql.catalyst.expressions.Remainder;
import org.apache.spark.sql.catalyst.expressions.Substring;
import org.apache.spark.sql.catalyst.expressions.Upper;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;
import scala.Option;

/** Which expressions compile, into what shape, and the reasons the others stay on the CPU. */
class ExpressionCompilerTest {
  private static final AttributeReference I = RandomCatalyst.attribute("i", DataTypes.IntegerType);
  private static final AttributeReference S = RandomCatalyst.attribute("s", DataTypes.StringType);
  private static final AttributeReference TS = RandomCatalyst.attribute("ts", DataTypes.TimestampType);
  private static final AttributeReference D = RandomCatalyst.attribute("d", DataTypes.createDecimalType(30, 2));
  private static final List<Attribute> INPUT = List.of(I, S, TS);
  private static final ExpressionSettings ALL = new ExpressionSettings(false, "UTC", f -> true);

  private static Expression plusOne(Expression e) {
    return new Add(e, new Literal(1, DataTypes.IntegerType), NumericEvalContext.apply(EvalMode.LEGACY(), true));
  }

  private static CompiledExpressions project(Expression e, ExpressionSettings s) {
    return ExpressionCompiler.compileProjection(List.of(RandomCatalyst.alias(e)), INPUT, s);
  }

  @Test
  void projectionsCompileWithPassThroughColumns() {
    CompiledExpressions c = ExpressionCompiler.compileProjection(List.of(S, RandomCatalyst.alias(plusOne(I))), INPUT,
        ALL);
    assertTrue(c.supported(), c.reasons().toString());
    ExprProgram p = c.program();
    assertEquals(List.of(new ExprProgram.Output(DeviceType.STRING, 1), new ExprProgram.Output(DeviceType.INT, -1)),
        p.outputs());
    assertEquals(List.of(Opcode.COLUMN, Opcode.LITERAL, Opcode.ADD, Opcode.OUTPUT),
        p.instructions().stream().map(ExprProgram.Instruction::op).toList());
  }

  /** substring(s, pos, len) with integer literals. */
  private static Expression substring(Expression s, int pos, int len) {
    return new Substring(s, new Literal(pos, DataTypes.IntegerType), new Literal(len, DataTypes.IntegerType));
  }

  @Test
  void substringsAreDerivedColumnsAfterTheMatches() {
    // the same substring twice (an output and a comparison) is one derived column, after the LIKE's match column
    Expression code = substring(S, 1, 2);
    CompiledExpressions c = ExpressionCompiler.compileProjection(List.of(RandomCatalyst.alias(code),
        RandomCatalyst.alias(new And(new EqualTo(code, Literal.create("13", DataTypes.StringType)),
            new Like(S, Literal.create("1%", DataTypes.StringType), '\\')))), INPUT, ALL);
    assertTrue(c.supported(), c.reasons().toString());
    assertEquals(List.of(new ColumnSubstring(1, 1, 2)), c.substrings());
    assertEquals(1, c.stringMatches().size());
    assertEquals(List.of(DeviceType.BOOLEAN, DeviceType.STRING), c.program().inputTypes().subList(3, 5));
    assertEquals(new ExprProgram.Output(DeviceType.STRING, 4), c.program().outputs().get(0));
  }

  @Test
  void substringsNeedAColumnAndLiterals() {
    assertEquals(List.of("substring [substring(s#" + S.exprId().id() + ", 1, i#" + I.exprId().id() + ")] with a "
        + "position or length that is not an integer literal is not supported on the GPU"),
        project(new Substring(S, new Literal(1, DataTypes.IntegerType), I), ALL).reasons());
    assertTrue(project(substring(new Upper(S), 1, 2), ALL).reasons().get(0)
        .startsWith("substring [substring(upper(s#"), "over an expression");
    assertEquals(List.of("substring expressions are disabled by spark.warp.expr.substring.enabled=false"),
        project(substring(S, 1, 2), new ExpressionSettings(false, "UTC", f -> !f.equals("substring"))).reasons());
  }

  @Test
  void predicatesCompileToOneBooleanOutput() {
    CompiledExpressions c = ExpressionCompiler.compilePredicate(new GreaterThan(I, new Literal(3,
        DataTypes.IntegerType)), INPUT, ALL);
    assertTrue(c.supported(), c.reasons().toString());
    assertEquals(List.of(DeviceType.BOOLEAN), c.program().outputTypes());
  }

  @Test
  void divisionsEvaluateTheDivisorFirstAndGuardAFallibleDividend() {
    Expression dividend = new Add(I, I, NumericEvalContext.apply(EvalMode.ANSI(), true));
    CompiledExpressions c = project(new Remainder(dividend, I, NumericEvalContext.apply(EvalMode.ANSI(), true)), ALL);
    assertEquals(List.of(Opcode.COLUMN, Opcode.DIVISOR_CHECK, Opcode.COLUMN, Opcode.COLUMN, Opcode.ADD,
        Opcode.REMAINDER, Opcode.OUTPUT), c.program().instructions().stream().map(ExprProgram.Instruction::op).toList());
  }

  @Test
  void unsupportedExpressionsAreNamed() {
    CompiledExpressions c = project(new EqualTo(new Upper(S), S), ALL);
    assertFalse(c.supported());
    assertEquals(1, c.reasons().size());
    assertTrue(c.reasons().get(0).startsWith("expression Upper ["), c.reasons().toString());
    assertTrue(c.reasons().get(0).endsWith("is not supported on the GPU"));
  }

  @Test
  void disabledFamiliesNameTheirSwitch() {
    ExpressionSettings noArithmetic = new ExpressionSettings(false, "UTC", f -> !f.equals("arithmetic"));
    CompiledExpressions c = project(plusOne(plusOne(I)), noArithmetic);
    assertEquals(List.of("arithmetic expressions are disabled by spark.warp.expr.arithmetic.enabled=false"),
        c.reasons());
  }

  @Test
  void computedStringsAreRefused() {
    CompiledExpressions c = project(new If(new GreaterThan(I, new Literal(0, DataTypes.IntegerType)), S, S), ALL);
    assertEquals(List.of("string-valued If is not supported on the GPU (only a bare column reference or a substring "
        + "can output string)"), c.reasons());
  }

  @Test
  void zoneDependentCastsNeedUtc() {
    Expression toDate = new Cast(TS, DataTypes.DateType, Option.apply("America/New_York"), EvalMode.LEGACY());
    assertTrue(project(toDate, ALL).supported());
    CompiledExpressions c = project(toDate, new ExpressionSettings(false, "America/New_York", f -> true));
    assertFalse(c.supported());
    assertTrue(c.reasons().get(0).contains("only in UTC"), c.reasons().toString());
  }

  @Test
  void everyReasonIsReported() {
    AttributeReference whole = RandomCatalyst.attribute("w", DataTypes.createDecimalType(38, 0));
    AttributeReference fraction = RandomCatalyst.attribute("f", DataTypes.createDecimalType(38, 20));
    Expression wide = new Divide(whole, fraction, NumericEvalContext.apply(EvalMode.LEGACY(), true));
    CompiledExpressions c = ExpressionCompiler.compileProjection(List.of(RandomCatalyst.alias(wide),
        RandomCatalyst.alias(new Upper(S))), List.of(I, S, TS, D, whole, fraction), ALL);
    // 128-bit decimals divide on the device where the dividend scaled to the quotient's scale fits 57 digits
    assertEquals(2, c.reasons().size(), c.reasons().toString());
    assertTrue(c.reasons().get(0).startsWith("Divide [")
        && c.reasons().get(0).contains("DIVIDE of decimal(38,0) and decimal(38,20)"), c.reasons().toString());
    assertTrue(c.reasons().get(1).contains("Upper"), c.reasons().toString());
  }
}
