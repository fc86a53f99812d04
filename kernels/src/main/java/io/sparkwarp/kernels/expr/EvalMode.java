package io.sparkwarp.kernels.expr;

/**
 * How an instruction treats a row it cannot compute (overflow, division by zero, a value that does not fit the
 * target type), after Spark's {@code EvalMode}. Device code: {@code MODE_*} in {@code expr_program.cuh}.
 */
public enum EvalMode {
  /** Spark with ANSI off: integers wrap at their width, divisions by zero and decimal overflows give null. */
  LEGACY,
  /** Spark with ANSI on: the row raises an {@link ExpressionErrorException}. */
  ANSI,
  /** Spark's try_* functions: what ANSI would raise becomes null. */
  TRY
}
