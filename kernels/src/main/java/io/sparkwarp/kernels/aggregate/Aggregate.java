package io.sparkwarp.kernels.aggregate;

import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.batch.DeviceType.Kind;
import io.sparkwarp.kernels.batch.UnsupportedTypeException;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * One aggregate of a group-by: the operation, the input column it reads (an index into the aggregation's inputs;
 * -1 for {@link AggregateOp#COUNT_ALL}), its result type, and the options Spark's buffers need.
 *
 * @param factors for a sum of products, the other factors' input columns (up to {@link #MAX_FACTORS}): the sum is
 *     of input x factors, exact, a row taking part where all of them are non-null (Spark's {@code sum(a * b)} of
 *     decimals, whose product has more than 18 digits). 64-bit decimals of at most 38 digits in all; the result's
 *     scale is the sum of theirs. Empty for every other aggregate.
 * @param mask an input BOOLEAN column: only rows where it is {@code maskValue} take part (Spark's FILTER clause,
 *     and the "empty" flag of a decimal sum's buffer), or -1 for every row
 * @param nullPoisons a null input makes the group's result null (merging sums whose overflow is a null)
 * @param emptyIsIdentity a group without any non-null input gets the operation's identity instead of null: 0 for a
 *     sum, true for the minimum and false for the maximum of booleans (the starting values of Spark's buffers)
 */
public record Aggregate(AggregateOp op, int input, List<Integer> factors, DeviceType resultType, int mask,
    boolean maskValue, boolean nullPoisons, boolean emptyIsIdentity) {
  /** Most factors a sum of products takes besides its input (aggregate_spec.cuh MAX_FACTORS). */
  public static final int MAX_FACTORS = 2;

  private static final Set<Kind> INTEGRAL = EnumSet.of(Kind.BYTE, Kind.SHORT, Kind.INT, Kind.LONG);
  private static final Set<Kind> ORDERED = EnumSet.of(Kind.BOOLEAN, Kind.BYTE, Kind.SHORT, Kind.INT, Kind.LONG,
      Kind.FLOAT, Kind.DOUBLE, Kind.DATE, Kind.TIMESTAMP, Kind.DECIMAL);

  public Aggregate {
    factors = List.copyOf(factors);
    if (!factors.isEmpty() && (op != AggregateOp.SUM || factors.size() > MAX_FACTORS)) {
      throw new IllegalArgumentException("a sum multiplies its input by up to " + MAX_FACTORS + " factors, not "
          + op + " of " + factors.size());
    }
    if ((op == AggregateOp.COUNT_ALL) != (input < 0)) {
      throw new IllegalArgumentException(op + (input < 0 ? " needs an input column" : " takes no input column"));
    }
    if (nullPoisons && op != AggregateOp.SUM) {
      throw new IllegalArgumentException("only SUM is poisoned by nulls, not " + op);
    }
    boolean booleanExtreme = (op == AggregateOp.MIN || op == AggregateOp.MAX) && resultType.kind() == Kind.BOOLEAN;
    if (emptyIsIdentity && op != AggregateOp.SUM && !booleanExtreme) {
      throw new IllegalArgumentException("only sums and boolean extremes have an identity, not " + op + " into "
          + resultType);
    }
  }

  public static Aggregate countAll() {
    return new Aggregate(AggregateOp.COUNT_ALL, -1, List.of(), DeviceType.LONG, -1, true, false, false);
  }

  public static Aggregate count(int input) {
    return new Aggregate(AggregateOp.COUNT, input, List.of(), DeviceType.LONG, -1, true, false, false);
  }

  public static Aggregate sum(int input, DeviceType resultType) {
    return new Aggregate(AggregateOp.SUM, input, List.of(), resultType, -1, true, false, false);
  }

  public static Aggregate min(int input, DeviceType inputType) {
    return new Aggregate(AggregateOp.MIN, input, List.of(), inputType, -1, true, false, false);
  }

  public static Aggregate max(int input, DeviceType inputType) {
    return new Aggregate(AggregateOp.MAX, input, List.of(), inputType, -1, true, false, false);
  }

  /** The exact sum of input x factors (a decimal result, its scale the sum of the factors'). */
  public static Aggregate sumOfProducts(int input, List<Integer> factors, DeviceType resultType) {
    return new Aggregate(AggregateOp.SUM, input, factors, resultType, -1, true, false, false);
  }

  /** This aggregate over the rows where BOOLEAN input column {@code maskInput} is {@code value} (not null). */
  public Aggregate where(int maskInput, boolean value) {
    return new Aggregate(op, input, factors, resultType, maskInput, value, nullPoisons, emptyIsIdentity);
  }

  /** This sum, null for a group with a null input. */
  public Aggregate poisonedByNull() {
    return new Aggregate(op, input, factors, resultType, mask, maskValue, true, emptyIsIdentity);
  }

  /** This aggregate, its identity for a group without a non-null input ({@link #emptyIsIdentity}). */
  public Aggregate identityWhenEmpty() {
    return new Aggregate(op, input, factors, resultType, mask, maskValue, nullPoisons, true);
  }

  /**
   * Throws unless the aggregate can run over an input of {@code inputType} (null for COUNT_ALL) and a mask of
   * {@code maskType} (null without one).
   *
   * @throws UnsupportedTypeException naming the operation and types the device does not aggregate
   */
  public void check(DeviceType inputType, DeviceType maskType, List<DeviceType> factorTypes) {
    if (!factorTypes.isEmpty()) {
      int digits = inputType.precision();
      int scale = inputType.scale();
      boolean ok = inputType.kind() == Kind.DECIMAL && resultType.isDecimal();
      for (DeviceType f : factorTypes) {
        ok &= f.kind() == Kind.DECIMAL;
        digits += f.precision();
        scale += f.scale();
      }
      if (!ok || digits > DeviceType.MAX_WIDE_DECIMAL_PRECISION || scale != resultType.scale()) {
        throw new UnsupportedTypeException("a sum of products of " + inputType + " and " + factorTypes + " into "
            + resultType + " is not supported on the device");
      }
      return;
    }
    if (maskType != null && maskType.kind() != Kind.BOOLEAN) {
      throw new IllegalArgumentException("an aggregate's mask is a boolean column, not " + maskType);
    }
    boolean ok = switch (op) {
      case COUNT_ALL, COUNT -> resultType.kind() == Kind.LONG;
      case SUM -> sumOk(inputType.kind(), inputType, resultType);
      case MIN, MAX -> ORDERED.contains(inputType.kind()) && resultType.equals(inputType);
    };
    if (!ok) {
      throw new UnsupportedTypeException(op.name().toLowerCase(java.util.Locale.ROOT) + " of " + inputType + " into "
          + resultType + " is not supported on the device");
    }
  }

  private static boolean sumOk(Kind in, DeviceType inputType, DeviceType result) {
    if (INTEGRAL.contains(in)) return result.kind() == Kind.LONG || result.kind() == Kind.DOUBLE;
    if (in == Kind.FLOAT || in == Kind.DOUBLE) return result.kind() == Kind.DOUBLE;
    return inputType.isDecimal() && result.isDecimal() && result.scale() == inputType.scale();
  }
}
