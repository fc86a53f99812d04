package io.sparkwarp.plugin.expr;

import io.sparkwarp.kernels.expr.ExprProgram;
import io.sparkwarp.kernels.expr.ExpressionErrorException;
import io.sparkwarp.kernels.strings.MatchResult;
import io.sparkwarp.strings.ColumnMatch;
import io.sparkwarp.strings.ColumnSubstring;
import io.sparkwarp.strings.MatchOptions;
import io.sparkwarp.strings.MatchingProgram;
import java.util.function.Consumer;
import java.util.List;
import java.util.Map;
import org.apache.spark.QueryContext;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.SupportQueryContext;

/**
 * The result of compiling Spark expressions: a program (with the string predicates and substrings it reads) when
 * every expression can run on the GPU, otherwise every reason why not (lowercase facts, for explain output and
 * fallback).
 */
public final class CompiledExpressions {
  private final ExprProgram program;
  /** The string predicates run before the program; match i is the program's input column (batch columns + i). */
  private final List<ColumnMatch> stringMatches;
  /** The substrings computed before the program; they are the program's input columns after the matches. */
  private final List<ColumnSubstring> substrings;
  private final List<String> reasons;
  /** The Spark expression behind each instruction that can raise an error, by instruction index. */
  private final Map<Integer, Expression> errorSites;

  CompiledExpressions(ExprProgram program, List<ColumnMatch> stringMatches, List<ColumnSubstring> substrings,
      List<String> reasons, Map<Integer, Expression> errorSites) {
    this.program = program;
    this.stringMatches = List.copyOf(stringMatches);
    this.substrings = List.copyOf(substrings);
    this.reasons = List.copyOf(reasons);
    this.errorSites = Map.copyOf(errorSites);
  }

  public boolean supported() {
    return reasons.isEmpty();
  }

  /** Why the expressions stay on the CPU; empty when {@link #supported()}. */
  public List<String> reasons() {
    return reasons;
  }

  /**
   * The compiled program with its string predicates and substrings, ready to evaluate: matchers run with {@code
   * options} and report each batch's results to {@code report}.
   */
  public MatchingProgram matchingProgram(MatchOptions options, Consumer<List<MatchResult>> report) {
    return new MatchingProgram(program(), stringMatches, substrings, options, report);
  }

  /** {@link #matchingProgram} with the default options, reported nowhere. */
  public MatchingProgram matchingProgram() {
    return matchingProgram(MatchOptions.DEFAULT, results -> {});
  }

  /**
   * The compiled program alone: it reads the string predicates' match columns and then the substrings after the
   * batch's columns.
   */
  public ExprProgram program() {
    if (!supported()) throw new IllegalStateException("expressions not supported on the GPU: " + reasons);
    return program;
  }

  /**
   * The string predicates to evaluate over a batch before the program runs: their BOOLEAN columns, in this order,
   * follow the batch's own columns in the program's input.
   */
  public List<ColumnMatch> stringMatches() {
    return stringMatches;
  }

  /**
   * The substrings to compute over a batch before the program runs: their STRING columns, in this order, follow
   * the match columns in the program's input.
   */
  public List<ColumnSubstring> substrings() {
    return substrings;
  }

  /**
   * The exception Spark throws for an error this program raised, with the query context (the SQL fragment) of the
   * expression that failed.
   */
  public RuntimeException toSparkException(ExpressionErrorException e) {
    Expression source = errorSites.get(e.site());
    QueryContext context = source instanceof SupportQueryContext s ? s.getContextOrNull() : null;
    return SparkErrors.toSparkException(e, context);
  }
}
