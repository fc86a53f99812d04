package io.sparkwarp.kernels.expr;

/**
 * The comparisons of {@link Opcode#COMPARE}, with Spark's semantics: null in, null out, except for the null-safe
 * equality ({@code <=>}), which is true for two nulls and false for one. Device code: {@code CMP_*} in
 * {@code expr_program.cuh}.
 */
public enum Comparison {
  EQ, LT, LE, GT, GE, EQ_NULL_SAFE
}
