package io.sparkwarp.kernels.expr;

/**
 * The instruction set of an {@link ExprProgram}. Every instruction is four int32 words {@code op, a, b, c}; jump
 * targets are instruction indices and always point forward, so a program has no loops. The device reads the
 * ordinals ({@code OP_*} in {@code expr_program.cuh}); {@code kind} operands are {@code DeviceType.Kind} ordinals
 * and {@code mode} operands {@link EvalMode} ordinals.
 *
 * <p>Values on the stack are a 64-bit payload plus a null flag: booleans, integers, dates, timestamps and unscaled
 * decimals as int64; floats and doubles as a double (float results are rounded to float after every operation,
 * which is exactly Java's float arithmetic); strings and binaries as an address and a length into the input
 * column's bytes or the program's byte literals; 128-bit decimals (kind DECIMAL128) as the payload and a second,
 * high word.
 */
public enum Opcode {
  // Loads. COLUMN a=column b=kind pushes the row's value of an input column. LITERAL a=index pushes literal a (with
  // b=1 a 128-bit decimal: literal a its low word, a + 1 its high word).
  // NULL pushes a null. BYTES_LITERAL a=offset b=length pushes bytes of the byte literal pool.
  COLUMN, LITERAL, NULL, BYTES_LITERAL,

  // Predicates. COMPARE a=kind b=Comparison pops right then left and pushes left (cmp) right: floats compare as Spark
  // does (NaN equals NaN and is above every other value, -0.0 equals 0.0), bytes in unsigned lexicographic order.
  // NOT, AND, OR: SQL three-valued logic. IS_NULL, IS_NOT_NULL: never null. IN a=kind|hasNull<<8 b=first literal
  // c=count: null for a null value, true on a match (COMPARE EQ), else null when the list holds a null, else false;
  // the literals of a bytes IN hold offset<<32|length into the byte literal pool.
  COMPARE, NOT, AND, OR, IS_NULL, IS_NOT_NULL, IN,

  // Arithmetic, a=kind b=mode c=decimal scales (s1 | s2<<8 | p<<16 | s<<24 for kind DECIMAL). ADD, SUBTRACT,
  // MULTIPLY pop right then left. DIVIDE, REMAINDER, INTEGRAL_DIVIDE pop the dividend then the divisor (Spark
  // evaluates the divisor first): null when either is null; a zero divisor gives null, or DIVIDE_BY_ZERO in ANSI
  // mode. Integers wrap at their width (LEGACY) or overflow (ANSI); decimals round HALF_UP to the result scale and
  // give null (LEGACY, TRY) or DECIMAL_OVERFLOW (ANSI) when the result needs more than p digits. With kind DECIMAL
  // and p > 18, MULTIPLY's product is a 128-bit decimal; with kind DECIMAL128, ADD and SUBTRACT of two.
  // INTEGRAL_DIVIDE yields a long. NEGATE a=kind b=mode.
  ADD, SUBTRACT, MULTIPLY, DIVIDE, REMAINDER, INTEGRAL_DIVIDE, NEGATE,

  // CAST a=from kind b=to kind c=mode | from scale<<8 | to precision<<16 | to scale<<24: Spark's Cast among
  // boolean, integers, floats, decimals, and between dates and timestamps (UTC).
  CAST,

  // Control. JUMP a=target. JUMP_IF_NOT_TRUE a=target pops a condition and jumps unless it is true (If, CaseWhen).
  // JUMP_IF_NULL a=target jumps when the top is null, keeping it (a null-intolerant operator whose right operand
  // must not be evaluated). JUMP_IF_FALSE / JUMP_IF_TRUE a=target jump when the top is a non-null false / true,
  // keeping it (AND / OR short circuit). COALESCE_JUMP a=target jumps when the top is not null, else pops it.
  // DIVISOR_CHECK a=target b=kind c=mode: when the divisor on top is null, or zero outside ANSI mode, it becomes
  // null and the dividend and the division are skipped.
  JUMP, JUMP_IF_NOT_TRUE, JUMP_IF_NULL, JUMP_IF_FALSE, JUMP_IF_TRUE, COALESCE_JUMP, DIVISOR_CHECK,

  // OUTPUT a=output b=kind pops the top into output column a (nulls store zero; NaN stores the canonical NaN).
  OUTPUT,

  // DATE_FIELD a=field (a DateField ordinal) pops a date and pushes that field of it as an int, in the proleptic
  // Gregorian calendar as Spark computes it (a null stays null).
  DATE_FIELD
}
