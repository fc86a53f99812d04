package io.sparkwarp.plugin.expr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.expr.Opcode;
import io.sparkwarp.kernels.strings.DfaMatcher;
import io.sparkwarp.kernels.strings.SegmentMatcher;
import io.sparkwarp.strings.ColumnMatch;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.Contains;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GreaterThan;
import org.apache.spark.sql.catalyst.expressions.Like;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.Or;
import org.apache.spark.sql.catalyst.expressions.RLike;
import org.apache.spark.sql.catalyst.expressions.StartsWith;
import org.apache.spark.sql.catalyst.expressions.Upper;
import org.apache.spark.sql.types.DataTypes;
import org.junit.jupiter.api.Test;

/** How string predicates compile: match columns read by the program, fused ORs, and the reasons for the CPU. */
class StringPredicateCompilerTest {
  private static final AttributeReference I = RandomCatalyst.attribute("i", DataTypes.IntegerType);
  private static final AttributeReference S = RandomCatalyst.attribute("s", DataTypes.StringType);
  private static final AttributeReference T = RandomCatalyst.attribute("t", DataTypes.StringType);
  private static final List<Attribute> INPUT = List.of(I, S, T);
  private static final ExpressionSettings ALL = new ExpressionSettings(false, "UTC", f -> true);

  private static Literal str(String s) {
    return Literal.create(s, DataTypes.StringType);
  }

  private static Like like(Expression e, String pattern) {
    return new Like(e, str(pattern), '\\');
  }

  private static CompiledExpressions predicate(Expression e) {
    return ExpressionCompiler.compilePredicate(e, INPUT, ALL);
  }

  @Test
  void aLikeIsAMatchColumnAfterTheInputs() {
    CompiledExpressions c = predicate(new And(like(S, "%green%"), new GreaterThan(I, Literal.create(3,
        DataTypes.IntegerType))));
    assertTrue(c.supported(), c.reasons().toString());
    assertEquals(List.of(new ColumnMatch(1, SegmentMatcher.contains(bytes("green")))), c.stringMatches());
    assertEquals(List.of(DeviceType.INT, DeviceType.STRING, DeviceType.STRING, DeviceType.BOOLEAN),
        c.program().inputTypes());
    assertEquals(3, c.program().instructions().get(0).a(), "the program reads the match column");
  }

  @Test
  void theSamePredicateTwiceIsMatchedOnce() {
    CompiledExpressions c = ExpressionCompiler.compileProjection(List.of(RandomCatalyst.alias(like(S, "a%")),
        RandomCatalyst.alias(new StartsWith(S, str("a")))), INPUT, ALL);
    assertEquals(1, c.stringMatches().size(), c.stringMatches().toString());
  }

  @Test
  void orsOnOneColumnShareOneAutomaton() {
    Expression e = new Or(new Or(like(S, "%green%"), new GreaterThan(I, Literal.create(3, DataTypes.IntegerType))),
        new Or(new Contains(S, str("blue")), like(T, "%red%")));
    CompiledExpressions c = predicate(e);
    assertTrue(c.supported(), c.reasons().toString());
    assertEquals(2, c.stringMatches().size(), c.stringMatches().toString());
    ColumnMatch fused = c.stringMatches().stream().filter(m -> m.column() == 1).findFirst().orElseThrow();
    DfaMatcher dfa = assertInstanceOf(DfaMatcher.class, fused.matcher());
    assertTrue(dfa.matches(bytes("a blue sky"), 0, 10));
    assertTrue(dfa.matches(bytes("greenish"), 0, 8));
    assertFalse(dfa.matches(bytes("red"), 0, 3));
    assertTrue(c.stringMatches().contains(new ColumnMatch(2, SegmentMatcher.contains(bytes("red")))));
  }

  @Test
  void rlikeBecomesAnAutomaton() {
    CompiledExpressions c = predicate(new RLike(S, str("^gre+n|blue$")));
    assertTrue(c.supported(), c.reasons().toString());
    assertInstanceOf(DfaMatcher.class, c.stringMatches().get(0).matcher());
  }

  @Test
  void reasonsForTheCpu() {
    assertReason(new RLike(S, str("(a)\\1")), "backreference");
    assertReason(like(S, "a\\"), "invalid pattern");
    assertReason(new RLike(S, str("(ab")), "invalid pattern");
    assertReason(like(new Upper(S), "a%"), "over an expression");
    assertReason(new Like(S, T, '\\'), "not a literal");
    CompiledExpressions off = ExpressionCompiler.compilePredicate(like(S, "a%"), INPUT,
        new ExpressionSettings(false, "UTC", f -> !f.equals("like")));
    assertEquals(List.of("like expressions are disabled by spark.warp.expr.like.enabled=false"), off.reasons());
  }

  @Test
  void aNullPatternIsNull() {
    CompiledExpressions c = predicate(new Like(S, Literal.create(null, DataTypes.StringType), '\\'));
    assertTrue(c.supported(), c.reasons().toString());
    assertTrue(c.stringMatches().isEmpty());
    assertEquals(Opcode.NULL, c.program().instructions().get(0).op());
  }

  private static void assertReason(Expression e, String expected) {
    CompiledExpressions c = predicate(e);
    assertFalse(c.supported(), e.toString());
    assertTrue(c.reasons().stream().anyMatch(r -> r.contains(expected)), c.reasons().toString());
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
