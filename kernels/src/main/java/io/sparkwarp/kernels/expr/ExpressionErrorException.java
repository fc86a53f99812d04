package io.sparkwarp.kernels.expr;

import io.sparkwarp.kernels.batch.DeviceType;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * A row raised an error an ANSI-mode expression must raise: the first such row of the batch (the lowest index), with
 * the instruction that failed and its operands, so that the caller can build the exception Spark itself throws.
 */
public final class ExpressionErrorException extends RuntimeException {
  /** What went wrong. Device code: {@code ERR_*} in {@code expr_program.cuh} (ordinal + 1; 0 means no error). */
  public enum Kind {
    /** Integer +, -, *, unary minus, or long div of MIN_VALUE by -1, past the type's range. */
    ARITHMETIC_OVERFLOW,
    /** Division, div or remainder by zero. */
    DIVIDE_BY_ZERO,
    /** A decimal result or cast that needs more digits than its precision. */
    DECIMAL_OVERFLOW,
    /** A numeric cast to a type that cannot hold the value. */
    CAST_OVERFLOW,
    /** A date cast to a timestamp past the range of microseconds in a long (Spark raises it in every mode). */
    DATETIME_OVERFLOW
  }

  private final Kind kind;
  private final int row;
  private final int site;
  private final ExprProgram.Instruction instruction;
  private final List<Object> operands;

  /**
   * @param site index of the failing instruction in {@code program}
   * @param rawOperands the instruction's operand payloads: left and right (dividend and divisor for divisions), or
   *     the one operand of a cast or negation; then, for 128-bit decimal operands, their high words in that order
   */
  public ExpressionErrorException(Kind kind, int row, ExprProgram program, int site, long... rawOperands) {
    this(kind, row, site, program.instructions().get(site), rawOperands);
  }

  private ExpressionErrorException(Kind kind, int row, int site, ExprProgram.Instruction instruction,
      long[] rawOperands) {
    this(kind, row, site, instruction, decode(instruction.operandTypes(), rawOperands));
  }

  private ExpressionErrorException(Kind kind, int row, int site, ExprProgram.Instruction instruction,
      List<Object> operands) {
    super(kind + " in " + instruction + " at row " + row + (operands.isEmpty() ? "" : " with operands " + operands));
    this.kind = kind;
    this.row = row;
    this.site = site;
    this.instruction = instruction;
    this.operands = operands;
  }

  private static List<Object> decode(List<DeviceType> types, long[] raw) {
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < types.size() && i < raw.length; i++) {
      DeviceType type = types.get(i);
      if (type.kind() == DeviceType.Kind.DECIMAL128 && i + types.size() < raw.length) {
        // two's complement words, low then high
        BigInteger unscaled = BigInteger.valueOf(raw[i + types.size()]).shiftLeft(64)
            .add(new BigInteger(Long.toUnsignedString(raw[i])));
        values.add(new BigDecimal(unscaled, type.scale()));
      } else {
        values.add(javaValue(type, raw[i]));
      }
    }
    return List.copyOf(values);
  }

  /** A stack payload as the Java value Spark uses for the type (dates as Integer days, timestamps as Long micros). */
  static Object javaValue(DeviceType type, long bits) {
    return switch (type.kind()) {
      case BOOLEAN -> bits != 0;
      case BYTE -> (byte) bits;
      case SHORT -> (short) bits;
      case INT, DATE -> (int) bits;
      case LONG, TIMESTAMP -> bits;
      case FLOAT -> (float) Double.longBitsToDouble(bits);
      case DOUBLE -> Double.longBitsToDouble(bits);
      case DECIMAL -> BigDecimal.valueOf(bits, type.scale());
      case DECIMAL128, STRING, BINARY -> throw new IllegalArgumentException("no arithmetic error has " + type
          + " operands");
    };
  }

  public Kind kind() {
    return kind;
  }

  /** Index of the row in the batch. */
  public int row() {
    return row;
  }

  /** Index of the failing instruction in the program. */
  public int site() {
    return site;
  }

  /** The failing instruction, with its operand and result types. */
  public ExprProgram.Instruction instruction() {
    return instruction;
  }

  /** The operand values in the order of {@code instruction().operandTypes()}, as Java values of those types. */
  public List<Object> operands() {
    return operands;
  }
}
