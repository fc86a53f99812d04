package io.sparkwarp.plugin.expr;

import io.sparkwarp.kernels.strings.StringMatcher;
import io.sparkwarp.strings.CompiledPattern;
import io.sparkwarp.strings.LikeCompiler;
import io.sparkwarp.strings.LiteralMatchers;
import io.sparkwarp.strings.MultiPattern;
import io.sparkwarp.strings.RegexCompiler;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.BinaryExpression;
import org.apache.spark.sql.catalyst.expressions.Contains;
import org.apache.spark.sql.catalyst.expressions.EndsWith;
import org.apache.spark.sql.catalyst.expressions.ExprId;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Like;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.RLike;
import org.apache.spark.sql.catalyst.expressions.StartsWith;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Spark's string predicates with literal patterns as string-ops matchers: LIKE (with its escape character),
 * RLIKE, StartsWith, EndsWith, Contains, and ORs of several on one column as one matcher. A pattern Spark would
 * reject, or a regex outside the transpiled subset, gives a reason instead: the expression stays on the CPU, where
 * Spark raises its own error or evaluates it.
 */
final class PatternCompilation {
  /** Spark's default LIKE escape character; ORs are fused over patterns that use it. */
  private static final char ESCAPE = '\\';

  private PatternCompilation() {}

  /** The matcher of {@code e} (LIKE, RLIKE, StartsWith, EndsWith or Contains) with the non-null pattern given. */
  static CompiledPattern of(BinaryExpression e, String pattern) {
    if (e instanceof Like like) return LikeCompiler.compile(pattern, like.escapeChar());
    if (e instanceof RLike) return RegexCompiler.compile(pattern);
    if (e instanceof StartsWith) return LiteralMatchers.startsWith(utf8(pattern));
    if (e instanceof EndsWith) return LiteralMatchers.endsWith(utf8(pattern));
    if (e instanceof Contains) return LiteralMatchers.contains(utf8(pattern));
    throw new IllegalArgumentException("not a string predicate: " + e);
  }

  /**
   * The column of a StartsWith, EndsWith, Contains or (default-escape) LIKE of a column and a non-null literal: the
   * operands of an OR that can share one matcher. Null for anything else.
   */
  static ExprId fusableColumn(Expression e) {
    if (!(e instanceof StartsWith || e instanceof EndsWith || e instanceof Contains
        || e instanceof Like like && like.escapeChar() == ESCAPE)) {
      return null;
    }
    BinaryExpression b = (BinaryExpression) e;
    return b.left() instanceof AttributeReference a && b.right() instanceof Literal l && l.value() != null
        ? a.exprId() : null;
  }

  /** One matcher for the OR of {@code group} (fusable predicates on one column), or null when none fits. */
  static StringMatcher anyOf(List<Expression> group) {
    List<String> patterns = new ArrayList<>();
    for (Expression e : group) {
      String literal = ((Literal) ((BinaryExpression) e).right()).value().toString();
      if (e instanceof Like) patterns.add(literal);
      else if (e instanceof StartsWith) patterns.add(escaped(literal) + "%");
      else if (e instanceof EndsWith) patterns.add("%" + escaped(literal));
      else patterns.add("%" + escaped(literal) + "%");
    }
    return MultiPattern.anyOf(patterns, ESCAPE).deviceMatcher().orElse(null);
  }

  /** {@code literal} as a LIKE pattern matching exactly it. */
  private static String escaped(String literal) {
    StringBuilder b = new StringBuilder();
    for (char c : literal.toCharArray()) {
      if (c == ESCAPE || c == '%' || c == '_') b.append(ESCAPE);
      b.append(c);
    }
    return b.toString();
  }

  private static byte[] utf8(String s) {
    return UTF8String.fromString(s).getBytes();
  }
}
