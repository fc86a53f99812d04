package io.sparkwarp.kernels.expr;

/** The parts of a date {@link Opcode#DATE_FIELD} extracts: Spark's year(), quarter(), month() and day(). */
public enum DateField {
  YEAR, QUARTER, MONTH, DAY_OF_MONTH
}
