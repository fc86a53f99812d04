package io.sparkwarp.plugin.expr;

import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.expr.ExprProgram;
import io.sparkwarp.kernels.expr.ExpressionErrorException;
import io.sparkwarp.kernels.expr.Opcode;
import java.math.BigDecimal;
import java.util.List;
import org.apache.spark.QueryContext;
import org.apache.spark.sql.errors.DataTypeErrors;
import org.apache.spark.sql.errors.QueryExecutionErrors;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;

/**
 * The exceptions Spark's own (interpreted) evaluation throws for the errors of ANSI-mode expressions, built from
 * what the device reported: the failing instruction, its operand types and values.
 */
public final class SparkErrors {
  private SparkErrors() {}

  /** {@link #toSparkException(ExpressionErrorException, QueryContext)} without a query context. */
  public static RuntimeException toSparkException(ExpressionErrorException e) {
    return toSparkException(e, null);
  }

  /**
   * The exception Spark throws for {@code e}.
   *
   * @param context the query context of the failing expression, or null
   */
  public static RuntimeException toSparkException(ExpressionErrorException e, QueryContext context) {
    ExprProgram.Instruction in = e.instruction();
    List<Object> operands = e.operands();
    return switch (e.kind()) {
      case DIVIDE_BY_ZERO -> in.op() == Opcode.REMAINDER ? QueryExecutionErrors.remainderByZeroError(context)
          : QueryExecutionErrors.divideByZeroError(context);
      case ARITHMETIC_OVERFLOW -> overflow(in, operands, context);
      case DECIMAL_OVERFLOW -> {
        DeviceType result = in.resultType();
        yield QueryExecutionErrors.cannotChangeDecimalPrecisionError(unroundedDecimal(in, operands),
            result.precision(), result.scale(), context);
      }
      case CAST_OVERFLOW -> {
        DeviceType from = in.operandTypes().get(0);
        Object value = operands.get(0);
        yield value instanceof BigDecimal d
            ? DataTypeErrors.castingCauseOverflowError(d + "BD", sparkType(from), sparkType(in.resultType()))
            : QueryExecutionErrors.castingCauseOverflowError(value, sparkType(from), sparkType(in.resultType()));
      }
      case DATETIME_OVERFLOW -> new ArithmeticException("long overflow");
    };
  }

  /** Integer overflow: the message of Java's Math.*Exact (int, long) or Spark's byte and short checks. */
  private static RuntimeException overflow(ExprProgram.Instruction in, List<Object> operands, QueryContext context) {
    DeviceType.Kind kind = in.operandTypes().get(0).kind();
    if (in.op() == Opcode.INTEGRAL_DIVIDE) return QueryExecutionErrors.overflowInIntegralDivideError(context);
    if (in.op() == Opcode.NEGATE) {
      return QueryExecutionErrors.arithmeticOverflowError(kind.name().toLowerCase(java.util.Locale.ROOT)
          .replace("int", "integer") + " overflow", "", null);
    }
    String hint = switch (in.op()) {
      case ADD -> "try_add";
      case SUBTRACT -> "try_subtract";
      default -> "try_multiply";
    };
    if (kind == DeviceType.Kind.BYTE || kind == DeviceType.Kind.SHORT) {
      String symbol = switch (in.op()) {
        case ADD -> "+";
        case SUBTRACT -> "-";
        default -> "*";
      };
      return QueryExecutionErrors.binaryArithmeticCauseOverflowError(((Number) operands.get(0)).shortValue(), symbol,
          ((Number) operands.get(1)).shortValue(), hint);
    }
    return QueryExecutionErrors.arithmeticOverflowError((kind == DeviceType.Kind.INT ? "integer" : "long")
        + " overflow", hint, context);
  }

  /** The value Spark failed to fit: its Decimal arithmetic on the operands, or the value a cast started from. */
  private static Decimal unroundedDecimal(ExprProgram.Instruction in, List<Object> operands) {
    Decimal left = decimal(in.operandTypes().get(0), operands.get(0));
    if (in.op() == Opcode.CAST) return left;
    Decimal right = decimal(in.operandTypes().get(1), operands.get(1));
    return switch (in.op()) {
      case ADD -> left.$plus(right);
      case SUBTRACT -> left.$minus(right);
      case MULTIPLY -> left.$times(right);
      case DIVIDE -> left.$div(right);
      default -> left.$percent(right);
    };
  }

  /** An operand as the Decimal Spark holds: decimals as they are, integers and booleans as Decimal(long). */
  private static Decimal decimal(DeviceType type, Object value) {
    if (value instanceof BigDecimal d) {
      return d.precision() <= 18 ? Decimal.apply(d.unscaledValue().longValueExact(), type.precision(), type.scale())
          : Decimal.apply(d, type.precision(), type.scale());
    }
    if (value instanceof Boolean b) return b ? Decimal.apply(1) : Decimal.apply(0);
    return Decimal.apply(((Number) value).longValue());
  }

  /** The Spark type of a device type, for error messages. */
  static DataType sparkType(DeviceType type) {
    return switch (type.kind()) {
      case BOOLEAN -> DataTypes.BooleanType;
      case BYTE -> DataTypes.ByteType;
      case SHORT -> DataTypes.ShortType;
      case INT -> DataTypes.IntegerType;
      case LONG -> DataTypes.LongType;
      case FLOAT -> DataTypes.FloatType;
      case DOUBLE -> DataTypes.DoubleType;
      case DATE -> DataTypes.DateType;
      case TIMESTAMP -> type.timeZone() == null ? DataTypes.TimestampNTZType : DataTypes.TimestampType;
      case DECIMAL, DECIMAL128 -> DataTypes.createDecimalType(type.precision(), type.scale());
      case STRING -> DataTypes.StringType;
      case BINARY -> DataTypes.BinaryType;
    };
  }
}
