package io.sparkwarp.plugin.exec;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.aggregate.Aggregate;
import io.sparkwarp.kernels.aggregate.Mean;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.batch.DeviceType.Kind;
import io.sparkwarp.plugin.types.SparkTypes;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.EvalMode$;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.Multiply;
import org.apache.spark.sql.catalyst.expressions.Or;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateExpression;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateFunction;
import org.apache.spark.sql.catalyst.expressions.aggregate.AggregateMode;
import org.apache.spark.sql.catalyst.expressions.aggregate.Average;
import org.apache.spark.sql.catalyst.expressions.aggregate.Complete$;
import org.apache.spark.sql.catalyst.expressions.aggregate.Count;
import org.apache.spark.sql.catalyst.expressions.aggregate.Final$;
import org.apache.spark.sql.catalyst.expressions.aggregate.Max;
import org.apache.spark.sql.catalyst.expressions.aggregate.Min;
import org.apache.spark.sql.catalyst.expressions.aggregate.Partial$;
import org.apache.spark.sql.catalyst.expressions.aggregate.Sum;
import org.apache.spark.sql.errors.QueryExecutionErrors;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.StringType;
import scala.Enumeration;
import scala.jdk.javaapi.CollectionConverters;

/**
 * How one of Spark's aggregate functions runs on the device, in its mode. Its buffer has Spark's layout exactly
 * (count: [count]; sum: [sum], of decimals [sum, isEmpty]; avg: [sum, count]; min, max: [value]), so a CPU final
 * aggregate consumes a GPU partial's output and the reverse. Three stages of device aggregates compute it:
 * <ul>
 *   <li>first: over the function's input (Partial, Complete: {@link #inputs} are its children, plus an is-null flag
 *       for decimal sums) or over buffers (PartialMerge, Final: the buffer columns), into buffers;
 *   <li>merge: buffers of several batches into one buffer per group;
 *   <li>final (Final, Complete): buffers into the columns the result is finished from: the result itself, or an
 *       average's sum and count, divided by {@link #finish}.
 * </ul>
 * Overflow follows Spark: long sums wrap around, or raise ARITHMETIC_OVERFLOW under ANSI; decimal sums are null in
 * the buffer once they overflow, and their result is null or, under ANSI, Spark's overflow error.
 */
public final class AggregateFunctionPlan implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The device computations of Spark's functions: count(*) and count of non-nullable input, count, sums, ... */
  private enum Op { COUNT_ALL, COUNT, SUM, DECIMAL_SUM, AVERAGE, MIN, MAX }

  private static final Set<Kind> INTEGRAL = EnumSet.of(Kind.BYTE, Kind.SHORT, Kind.INT, Kind.LONG);
  /**
   * Kinds whose min and max the device computes as Spark does. Not floats and doubles: Spark orders -0.0 equal to
   * 0.0 and keeps whichever of the two it met first, an order the device's parallel aggregation cannot reproduce.
   */
  /** What min and max take: strings, binaries and wide decimals through ranks ({@code RankedExtremes}). */
  private static final Set<Kind> ORDERED = EnumSet.of(Kind.BOOLEAN, Kind.BYTE, Kind.SHORT, Kind.INT, Kind.LONG,
      Kind.DATE, Kind.TIMESTAMP, Kind.DECIMAL, Kind.DECIMAL128, Kind.STRING, Kind.BINARY);
  /** Largest decimal precision whose average the device divides (the sum's 38 digits and the result's scale). */
  private static final int MAX_AVERAGE_PRECISION = 28;
  /**
   * The digits Spark's sum buffer has above its decimal inputs (precision + 10, up to 38): with them no partial sum of
   * fewer than 10^10 rows can overflow, so the device's exact sum equals Spark's in every order.
   */
  private static final int SUM_HEADROOM_DIGITS = 10;

  private final Op op;
  /** Whether the first stage reads the function's input (Partial, Complete) rather than its buffer. */
  private final boolean raw;
  /** Whether the function's result is computed here (Final, Complete). */
  private final boolean finalResult;
  /** Whether overflow raises Spark's error (the function's ANSI eval mode). */
  private final boolean ansi;
  /**
   * Factors of a decimal sum's input when it is a product wider than 18 digits ({@code sum(price * (1 - discount))}):
   * the device sums the exact products, so the product itself is never computed. 0: the input is the value itself.
   */
  private final int factors;
  /** The type min and max compare, the sum's buffer type, or LONG for counts. */
  private final DeviceType valueType;
  /** The result's type (an average's differs from its buffer's). */
  private final DeviceType resultType;
  /** The first stage's input expressions, over the child's output. */
  private final List<Expression> inputs;
  /** Whether the last input is a FILTER clause: only rows where it is true update the buffer. */
  private final boolean filtered;

  private AggregateFunctionPlan(Op op, boolean raw, boolean finalResult, boolean ansi, DeviceType valueType,
      DeviceType resultType, List<Expression> inputs) {
    this(op, raw, finalResult, ansi, 0, valueType, resultType, inputs, false);
  }

  private AggregateFunctionPlan(Op op, boolean raw, boolean finalResult, boolean ansi, int factors,
      DeviceType valueType, DeviceType resultType, List<Expression> inputs) {
    this(op, raw, finalResult, ansi, factors, valueType, resultType, inputs, false);
  }

  private AggregateFunctionPlan(Op op, boolean raw, boolean finalResult, boolean ansi, int factors,
      DeviceType valueType, DeviceType resultType, List<Expression> inputs, boolean filtered) {
    this.op = op;
    this.filtered = filtered;
    this.factors = factors;
    this.raw = raw;
    this.finalResult = finalResult;
    this.ansi = ansi;
    this.valueType = valueType;
    this.resultType = resultType;
    this.inputs = List.copyOf(inputs);
  }

  /**
   * The plan of {@code e}.
   *
   * @throws IllegalArgumentException with the reason, a lowercase fact, when it cannot run on the GPU
   */
  public static AggregateFunctionPlan of(AggregateExpression e, String timeZone) {
    AggregateFunctionPlan plan = unfiltered(e, timeZone);
    if (e.filter().isEmpty()) return plan;
    // Spark keeps a FILTER clause only where the function reads its input (Partial, Complete)
    List<Expression> inputs = new ArrayList<>(plan.inputs);
    inputs.add(e.filter().get());
    return new AggregateFunctionPlan(plan.op, plan.raw, plan.finalResult, plan.ansi, plan.factors, plan.valueType,
        plan.resultType, inputs, true);
  }

  private static AggregateFunctionPlan unfiltered(AggregateExpression e, String timeZone) {
    AggregateFunction f = e.aggregateFunction();
    AggregateMode mode = e.mode();
    boolean raw = mode == Partial$.MODULE$ || mode == Complete$.MODULE$;
    boolean finalResult = mode == Final$.MODULE$ || mode == Complete$.MODULE$;
    if (e.filter().isDefined() && !raw) {
      throw new IllegalArgumentException("a FILTER clause on merged buffers is not supported");
    }
    List<Expression> children = CollectionConverters.asJava(f.children());
    List<Expression> buffers = new ArrayList<>(CollectionConverters.asJava(f.inputAggBufferAttributes()));
    if (f instanceof Count) {
      boolean anyNullable = children.stream().anyMatch(Expression::nullable);
      if (anyNullable && children.size() > 1) {
        throw new IllegalArgumentException("count of several nullable expressions is not supported");
      }
      Op k = anyNullable ? Op.COUNT : Op.COUNT_ALL;
      return new AggregateFunctionPlan(k, raw, finalResult, false, DeviceType.LONG, DeviceType.LONG,
          raw ? (anyNullable ? children : List.of()) : buffers);
    }
    Expression child = children.get(0);
    DeviceType in = deviceType(child, timeZone);
    DeviceType result = deviceType(f, timeZone);
    if (f instanceof Sum s) {
      boolean ansi = evalMode(s.evalContext().evalMode(), f);
      if (INTEGRAL.contains(in.kind())) {
        return new AggregateFunctionPlan(Op.SUM, raw, finalResult, ansi, DeviceType.LONG, DeviceType.LONG,
            raw ? List.of(child) : buffers);
      }
      List<Expression> product = raw && in.kind() == Kind.DECIMAL128 ? exactFactors(child) : List.of();
      if (!product.isEmpty()) {
        // the buffer's isEmpty input: whether the product is null, i.e. any factor is
        Expression anyNull = new IsNull(product.get(0));
        for (Expression factor : product.subList(1, product.size())) anyNull = new Or(anyNull, new IsNull(factor));
        List<Expression> inputs = new ArrayList<>(product);
        inputs.add(anyNull);
        return new AggregateFunctionPlan(Op.DECIMAL_SUM, true, finalResult, ansi, product.size() - 1, result, result,
            inputs);
      }
      if (in.isDecimal()) {
        if (raw && result.precision() - in.precision() < SUM_HEADROOM_DIGITS) {
          // Spark's buffer nulls the moment a partial sum passes its precision, which then depends on row order
          throw new IllegalArgumentException("sum of " + in + " values is not supported (a sum buffer of " + result
              + " leaves no room above them, so whether it overflows depends on the order of the rows)");
        }
        return new AggregateFunctionPlan(Op.DECIMAL_SUM, raw, finalResult, ansi, result, result,
            raw ? List.of(child, new IsNull(child)) : buffers);
      }
      throw new IllegalArgumentException(floatingOrOther(f, in));
    }
    if (f instanceof Average a) {
      boolean ansi = evalMode(a.evalMode(), f);
      DeviceType sum = deviceType(a.sumDataType(), f, timeZone);
      if (!(INTEGRAL.contains(in.kind()) || in.isDecimal() && in.precision() <= MAX_AVERAGE_PRECISION)) {
        throw new IllegalArgumentException(in.isDecimal() ? "avg of " + in + " (precision above "
            + MAX_AVERAGE_PRECISION + ") is not supported" : floatingOrOther(f, in));
      }
      return new AggregateFunctionPlan(Op.AVERAGE, raw, finalResult, ansi, sum, result,
          raw ? List.of(child) : buffers);
    }
    if (f instanceof Min || f instanceof Max) {
      if (f.dataType() instanceof StringType s && !s.isUTF8BinaryCollation()) {
        throw new IllegalArgumentException(f.prettyName() + " of strings with collation " + s.collationName()
            + " is not supported (the GPU orders strings by their UTF-8 bytes)");
      }
      if (!ORDERED.contains(in.kind())) {
        throw new IllegalArgumentException(f.prettyName() + " of " + in + " is not supported" + (in.kind()
            == Kind.FLOAT || in.kind() == Kind.DOUBLE ? " (which of -0.0 and 0.0 Spark keeps depends on row order)"
            : ""));
      }
      return new AggregateFunctionPlan(f instanceof Min ? Op.MIN : Op.MAX, raw, finalResult, false, in, in,
          raw ? List.of(child) : buffers);
    }
    throw new IllegalArgumentException("aggregate function " + f.prettyName() + " is not supported");
  }

  /**
   * The factors of a decimal product Spark computes exactly (every multiplication's scale the sum of its operands',
   * at most 38 digits in all, so neither rounding nor overflow), each a decimal of at most 18 digits, at most {@value
   * Aggregate#MAX_FACTORS} + 1 of them; empty when {@code e} is no such product.
   */
  private static List<Expression> exactFactors(Expression e) {
    if (!(e instanceof Multiply m) || !(m.dataType() instanceof DecimalType type)) return List.of();
    List<Expression> factors = new ArrayList<>();
    for (Expression side : List.of(m.left(), m.right())) {
      List<Expression> inner = exactFactors(side);
      if (inner.isEmpty()) factors.add(side);
      else factors.addAll(inner);
    }
    int digits = 0;
    int scale = 0;
    for (Expression f : factors) {
      if (!(f.dataType() instanceof DecimalType d) || d.precision() > DeviceType.MAX_DECIMAL_PRECISION) return List.of();
      digits += d.precision();
      scale += d.scale();
    }
    boolean exact = digits <= DeviceType.MAX_WIDE_DECIMAL_PRECISION && scale == type.scale();
    return exact && factors.size() <= Aggregate.MAX_FACTORS + 1 ? factors : List.of();
  }

  private static String floatingOrOther(AggregateFunction f, DeviceType in) {
    return in.kind() == Kind.FLOAT || in.kind() == Kind.DOUBLE
        ? f.prettyName() + " of " + in + " values is not supported (a floating sum depends on the order of its rows)"
        : f.prettyName() + " of " + in + " is not supported";
  }

  /** Whether the eval mode is ANSI; TRY functions (try_sum, try_avg) stay on the CPU. */
  private static boolean evalMode(Enumeration.Value mode, AggregateFunction f) {
    if (mode == EvalMode$.MODULE$.TRY()) {
      throw new IllegalArgumentException(f.prettyName() + " in TRY mode is not supported");
    }
    return mode == EvalMode$.MODULE$.ANSI();
  }

  private static DeviceType deviceType(Expression e, String timeZone) {
    return deviceType(e.dataType(), e, timeZone);
  }

  private static DeviceType deviceType(org.apache.spark.sql.types.DataType t, Expression e, String timeZone) {
    return SparkTypes.deviceType(t, timeZone).orElseThrow(() -> new IllegalArgumentException(e.prettyName() + ": "
        + SparkTypes.whyNot(t).orElse(t.simpleString() + " is not supported")));
  }

  /** The first stage's input expressions, over the child's output. */
  public List<Expression> inputs() {
    return inputs;
  }

  /** Whether the function's result is computed here (Final, Complete) rather than its buffer. */
  public boolean finalResult() {
    return finalResult;
  }

  /** Columns of this function's buffer. */
  public int bufferWidth() {
    return op == Op.DECIMAL_SUM || op == Op.AVERAGE ? 2 : 1;
  }

  /** The first stage, over the inputs from column {@code at}: buffers. */
  List<Aggregate> first(int at) {
    if (!raw) return merge(at);
    List<Aggregate> update = update(at);
    if (!filtered) return update;
    int filter = at + inputs.size() - 1;
    return update.stream().map(a -> a.where(filter, true)).toList();
  }

  /** The first stage over the function's input, every row taking part. */
  private List<Aggregate> update(int at) {
    return switch (op) {
      case COUNT_ALL -> List.of(Aggregate.countAll());
      case COUNT -> List.of(Aggregate.count(at));
      case SUM -> List.of(Aggregate.sum(at, DeviceType.LONG));
      case DECIMAL_SUM -> List.of(firstSum(at).identityWhenEmpty(),
          Aggregate.min(at + 1 + factors, DeviceType.BOOLEAN).identityWhenEmpty());
      case AVERAGE -> List.of(Aggregate.sum(at, valueType).identityWhenEmpty(), Aggregate.count(at));
      case MIN -> List.of(Aggregate.min(at, valueType));
      case MAX -> List.of(Aggregate.max(at, valueType));
    };
  }

  /** A decimal sum's first stage over its input, or over the factors of its input. */
  private Aggregate firstSum(int at) {
    if (factors == 0) return Aggregate.sum(at, valueType);
    List<Integer> others = new ArrayList<>();
    for (int f = 1; f <= factors; f++) others.add(at + f);
    return Aggregate.sumOfProducts(at, others, valueType);
  }

  /** Merges buffers from column {@code at} into buffers. */
  List<Aggregate> merge(int at) {
    return switch (op) {
      case COUNT_ALL, COUNT -> List.of(Aggregate.sum(at, DeviceType.LONG).identityWhenEmpty());
      case SUM -> List.of(Aggregate.sum(at, DeviceType.LONG));
      case DECIMAL_SUM -> List.of(Aggregate.sum(at, valueType).poisonedByNull().identityWhenEmpty(),
          Aggregate.min(at + 1, DeviceType.BOOLEAN).identityWhenEmpty());
      case AVERAGE -> List.of(Aggregate.sum(at, valueType).poisonedByNull().identityWhenEmpty(),
          Aggregate.sum(at + 1, DeviceType.LONG).identityWhenEmpty());
      case MIN -> List.of(Aggregate.min(at, valueType));
      case MAX -> List.of(Aggregate.max(at, valueType));
    };
  }

  /** Merges buffers from column {@code at} into what {@link #finish} makes the result of. */
  List<Aggregate> last(int at) {
    return switch (op) {
      // rows whose buffer is empty take no part: a group of only those is null
      case DECIMAL_SUM -> List.of(Aggregate.sum(at, valueType).where(at + 1, false).poisonedByNull());
      case AVERAGE -> List.of(Aggregate.sum(at, valueType).poisonedByNull(),
          Aggregate.sum(at + 1, DeviceType.LONG).identityWhenEmpty());
      default -> merge(at);
    };
  }

  /** Columns {@link #last} makes. */
  int lastWidth() {
    return op == Op.AVERAGE ? 2 : 1;
  }

  /**
   * Raises Spark's error for an overflow a stage reported, where Spark raises one: a long sum under ANSI (in any
   * stage), and a decimal sum's result under ANSI (the last stage).
   */
  void checkOverflow(boolean overflowed, boolean lastStage) {
    if (!overflowed || !ansi) return;
    if (op == Op.SUM) throw QueryExecutionErrors.arithmeticOverflowError("long overflow", "try_sum", null);
    if (op == Op.DECIMAL_SUM && lastStage) throw QueryExecutionErrors.overflowInSumOfDecimalError(null, "try_sum");
  }

  /** The result column from the columns {@link #last} made, which this takes over. */
  DeviceColumn finish(Backend backend, List<DeviceColumn> lastColumns, DeviceStream stream) {
    if (op != Op.AVERAGE) return lastColumns.get(0);
    Mean mean;
    try {
      mean = backend.aggregates().mean(lastColumns.get(0), lastColumns.get(1), resultType, stream);
    } finally {
      Closeables.closeAll(lastColumns);
    }
    if (mean.overflowed() && ansi) {
      mean.close();
      throw QueryExecutionErrors.overflowInSumOfDecimalError(null, "try_avg");
    }
    return mean.column();
  }
}
