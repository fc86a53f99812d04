package io.sparkwarp.plugin.expr;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.apache.spark.sql.catalyst.expressions.Add;
import org.apache.spark.sql.catalyst.expressions.Alias;
import org.apache.spark.sql.catalyst.expressions.And;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.CaseWhen;
import org.apache.spark.sql.catalyst.expressions.Cast;
import org.apache.spark.sql.catalyst.expressions.Coalesce;
import org.apache.spark.sql.catalyst.expressions.Divide;
import org.apache.spark.sql.catalyst.expressions.EqualNullSafe;
import org.apache.spark.sql.catalyst.expressions.EqualTo;
import org.apache.spark.sql.catalyst.expressions.EvalMode;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.GreaterThan;
import org.apache.spark.sql.catalyst.expressions.GreaterThanOrEqual;
import org.apache.spark.sql.catalyst.expressions.If;
import org.apache.spark.sql.catalyst.expressions.In;
import org.apache.spark.sql.catalyst.expressions.InSet;
import org.apache.spark.sql.catalyst.expressions.IntegralDivide;
import org.apache.spark.sql.catalyst.expressions.IsNotNull;
import org.apache.spark.sql.catalyst.expressions.IsNull;
import org.apache.spark.sql.catalyst.expressions.LessThan;
import org.apache.spark.sql.catalyst.expressions.LessThanOrEqual;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.expressions.Multiply;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.expressions.Not;
import org.apache.spark.sql.catalyst.expressions.NumericEvalContext;
import org.apache.spark.sql.catalyst.expressions.Or;
import org.apache.spark.sql.catalyst.expressions.Remainder;
import org.apache.spark.sql.catalyst.expressions.Substring;
import org.apache.spark.sql.catalyst.expressions.Subtract;
import org.apache.spark.sql.catalyst.expressions.UnaryMinus;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Decimal;
import org.apache.spark.sql.types.DecimalType;
import org.apache.spark.sql.types.Metadata;
import org.apache.spark.unsafe.types.UTF8String;
import scala.Enumeration;
import scala.Option;
import scala.Tuple2;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Random, type-correct Catalyst expressions (as the analyzer would leave them: operands of one type, explicit eval
 * modes) over one column of every supported type, and random Spark internal values for those columns.
 */
final class RandomCatalyst {
  static final DecimalType DEC92 = DataTypes.createDecimalType(9, 2);
  static final DecimalType DEC52 = DataTypes.createDecimalType(5, 2);
  private static final DataType[] NUMERIC = {DataTypes.ByteType, DataTypes.ShortType, DataTypes.IntegerType,
      DataTypes.LongType, DataTypes.FloatType, DataTypes.DoubleType, DEC92, DEC52};
  private static final DataType[] COMPARABLE = {DataTypes.BooleanType, DataTypes.IntegerType, DataTypes.LongType,
      DataTypes.DoubleType, DataTypes.FloatType, DataTypes.DateType, DataTypes.TimestampType, DataTypes.StringType,
      DEC92};
  private static final String[] STRINGS = {"", "a", "ab", "é", "日本", "😀", "a😀b", "NULL", "zz"};

  private final Random rnd;
  private final boolean ansi;
  private final List<Attribute> input = new ArrayList<>();

  RandomCatalyst(Random rnd, boolean ansi) {
    this.rnd = rnd;
    this.ansi = ansi;
    DataType[] types = {DataTypes.BooleanType, DataTypes.ByteType, DataTypes.ShortType, DataTypes.IntegerType,
        DataTypes.LongType, DataTypes.FloatType, DataTypes.DoubleType, DEC92, DEC52, DataTypes.DateType,
        DataTypes.TimestampType, DataTypes.StringType, DataTypes.IntegerType, DataTypes.DoubleType};
    for (int i = 0; i < types.length; i++) input.add(attribute("c" + i, types[i]));
  }

  static AttributeReference attribute(String name, DataType type) {
    return new AttributeReference(name, type, true, Metadata.empty(), NamedExpression.newExprId(), seq(List.of()));
  }

  static NamedExpression alias(Expression e) {
    return new Alias(e, "out", NamedExpression.newExprId(), seq(List.of()), Option.empty(), seq(List.of()));
  }

  static <T> scala.collection.immutable.Seq<T> seq(List<T> values) {
    return CollectionConverters.asScala(values).toList();
  }

  List<Attribute> input() {
    return input;
  }

  /** A random expression of a random result type. */
  Expression expression() {
    DataType[] types = {DataTypes.BooleanType, DataTypes.BooleanType, DataTypes.IntegerType, DataTypes.LongType,
        DataTypes.DoubleType, DataTypes.FloatType, DataTypes.ShortType, DataTypes.ByteType, DEC92, DEC52,
        DataTypes.DateType, DataTypes.TimestampType, DataTypes.StringType};
    return gen(types[rnd.nextInt(types.length)], 3);
  }

  private Enumeration.Value mode() {
    int r = rnd.nextInt(10);
    if (r == 0) return EvalMode.TRY();
    return ansi ? EvalMode.ANSI() : EvalMode.LEGACY();
  }

  private Enumeration.Value strictMode() {
    return ansi ? EvalMode.ANSI() : EvalMode.LEGACY();
  }

  private NumericEvalContext context(Enumeration.Value mode) {
    return NumericEvalContext.apply(mode, true);
  }

  private Expression gen(DataType type, int depth) {
    if (depth <= 0 || rnd.nextInt(4) == 0) return leaf(type);
    if (rnd.nextInt(7) == 0) return conditional(type, depth);
    if (type == DataTypes.BooleanType) return bool(depth);
    if (type == DataTypes.DateType) {
      return new Cast(gen(DataTypes.TimestampType, depth - 1), type, Option.apply("UTC"), mode());
    }
    if (type == DataTypes.TimestampType) {
      return new Cast(gen(DataTypes.DateType, depth - 1), type, Option.apply("UTC"), mode());
    }
    if (type == DataTypes.StringType) return rnd.nextBoolean() ? substring() : leaf(type);
    if (type instanceof DecimalType) return decimal(type, depth);
    return number(type, depth);
  }

  private Expression leaf(DataType type) {
    List<Attribute> columns = input.stream().filter(a -> a.dataType().equals(type)).toList();
    if (!columns.isEmpty() && rnd.nextInt(3) != 0) return columns.get(rnd.nextInt(columns.size()));
    return new Literal(rnd.nextInt(10) == 0 ? null : value(type, false), type);
  }

  /**
   * substring of the string column with literal pos and len: positions before, at and past the start, from the end,
   * empty and negative lengths, and the extremes where pos + len saturates.
   */
  private Expression substring() {
    Attribute column = input.stream().filter(a -> a.dataType() == DataTypes.StringType).findFirst().orElseThrow();
    int[] positions = {-4, -2, -1, 0, 1, 2, 3, 5, Integer.MIN_VALUE, Integer.MAX_VALUE};
    int[] lengths = {-1, 0, 1, 2, 3, Integer.MAX_VALUE, Integer.MIN_VALUE};
    return new Substring(column, Literal.create(positions[rnd.nextInt(positions.length)], DataTypes.IntegerType),
        Literal.create(lengths[rnd.nextInt(lengths.length)], DataTypes.IntegerType));
  }

  /** A random internal value of {@code type}, salted with nulls and edge values. */
  Object value(DataType type) {
    return rnd.nextInt(6) == 0 ? null : value(type, rnd.nextInt(5) == 0);
  }

  private Object value(DataType type, boolean edge) {
    if (type == DataTypes.BooleanType) return rnd.nextBoolean();
    if (type == DataTypes.ByteType) return (byte) (edge ? pick(Byte.MIN_VALUE, Byte.MAX_VALUE, -1) : rnd.nextInt(21) - 10);
    if (type == DataTypes.ShortType) {
      return (short) (edge ? pick(Short.MIN_VALUE, Short.MAX_VALUE, -1) : rnd.nextInt(2001) - 1000);
    }
    if (type == DataTypes.IntegerType) return edge ? (int) pick(Integer.MIN_VALUE, Integer.MAX_VALUE, 0) : rnd.nextInt(
        20001) - 10000;
    if (type == DataTypes.LongType) return edge ? pick(Long.MIN_VALUE, Long.MAX_VALUE, 0) : (long) rnd.nextInt() * 1000;
    if (type == DataTypes.FloatType) {
      float[] edges = {Float.NaN, -0.0f, 0.0f, Float.POSITIVE_INFINITY, -Float.MAX_VALUE, 3e9f, 2.5f};
      return edge ? edges[rnd.nextInt(edges.length)] : (float) (rnd.nextGaussian() * 1000);
    }
    if (type == DataTypes.DoubleType) {
      double[] edges = {Double.NaN, -0.0, 0.0, Double.NEGATIVE_INFINITY, Double.MAX_VALUE, 3e18, -2.5, 2147483647.5};
      return edge ? edges[rnd.nextInt(edges.length)] : rnd.nextGaussian() * 1e5;
    }
    if (type instanceof DecimalType d) {
      long bound = (long) Math.pow(10, d.precision());
      long unscaled = edge ? (rnd.nextBoolean() ? bound - 1 : 1 - bound) : rnd.nextLong() % Math.min(bound, 100000);
      return Decimal.apply(unscaled, d.precision(), d.scale());
    }
    if (type == DataTypes.DateType) return edge ? (int) pick(Integer.MAX_VALUE, -1, 0) : rnd.nextInt(40000) - 20000;
    if (type == DataTypes.TimestampType) {
      return edge ? pick(Long.MIN_VALUE, -1, 0) : (long) (rnd.nextGaussian() * 1e15);
    }
    return UTF8String.fromString(STRINGS[rnd.nextInt(STRINGS.length)]);
  }

  private long pick(long... values) {
    return values[rnd.nextInt(values.length)];
  }

  private Expression bool(int depth) {
    switch (rnd.nextInt(8)) {
      case 0, 1 -> {
        DataType t = COMPARABLE[rnd.nextInt(COMPARABLE.length)];
        Expression l = gen(t, depth - 1);
        Expression r = gen(t, depth - 1);
        return switch (rnd.nextInt(6)) {
          case 0 -> new EqualTo(l, r);
          case 1 -> new EqualNullSafe(l, r);
          case 2 -> new LessThan(l, r);
          case 3 -> new LessThanOrEqual(l, r);
          case 4 -> new GreaterThan(l, r);
          default -> new GreaterThanOrEqual(l, r);
        };
      }
      case 2 -> {
        Expression l = gen(DataTypes.BooleanType, depth - 1);
        Expression r = gen(DataTypes.BooleanType, depth - 1);
        return rnd.nextBoolean() ? new And(l, r) : new Or(l, r);
      }
      case 3 -> {
        return new Not(gen(DataTypes.BooleanType, depth - 1));
      }
      case 4 -> {
        Expression c = gen(NUMERIC[rnd.nextInt(NUMERIC.length)], depth - 1);
        return rnd.nextBoolean() ? new IsNull(c) : new IsNotNull(c);
      }
      default -> {
        DataType t = COMPARABLE[rnd.nextInt(COMPARABLE.length)];
        Expression v = gen(t, depth - 1);
        List<Object> values = new ArrayList<>();
        for (int i = 0, n = 1 + rnd.nextInt(4); i < n; i++) values.add(rnd.nextInt(5) == 0 ? null : value(t, true));
        if (rnd.nextBoolean()) {
          Set<Object> set = new LinkedHashSet<>(values);
          return new InSet(v, CollectionConverters.asScala(set).toSet());
        }
        return new In(v, seq(values.stream().map(x -> (Expression) new Literal(x, t)).toList()));
      }
    }
  }

  private Expression conditional(DataType type, int depth) {
    return switch (rnd.nextInt(3)) {
      case 0 -> new If(gen(DataTypes.BooleanType, depth - 1), gen(type, depth - 1), gen(type, depth - 1));
      case 1 -> new CaseWhen(seq(List.of(new Tuple2<>(gen(DataTypes.BooleanType, depth - 1), gen(type, depth - 1)),
          new Tuple2<>(gen(DataTypes.BooleanType, depth - 1), gen(type, depth - 1)))),
          rnd.nextBoolean() ? Option.apply(gen(type, depth - 1)) : Option.empty());
      default -> new Coalesce(seq(List.of(gen(type, depth - 1), gen(type, depth - 1))));
    };
  }

  private Expression number(DataType type, int depth) {
    boolean floating = type == DataTypes.FloatType || type == DataTypes.DoubleType;
    switch (rnd.nextInt(6)) {
      case 0, 1 -> {
        Expression l = gen(type, depth - 1);
        Expression r = gen(type, depth - 1);
        NumericEvalContext ctx = context(mode());
        return switch (rnd.nextInt(3)) {
          case 0 -> new Add(l, r, ctx);
          case 1 -> new Subtract(l, r, ctx);
          default -> new Multiply(l, r, ctx);
        };
      }
      case 2 -> {
        if (type == DataTypes.DoubleType && rnd.nextBoolean()) {
          return new Divide(gen(type, depth - 1), gen(type, depth - 1), context(mode()));
        }
        if (type == DataTypes.LongType && rnd.nextBoolean()) {
          DataType operand = rnd.nextBoolean() ? type : DEC92;
          return new IntegralDivide(gen(operand, depth - 1), gen(rnd.nextBoolean() ? operand : operand, depth - 1),
              context(strictMode()));
        }
        return new Remainder(gen(type, depth - 1), gen(type, depth - 1), context(strictMode()));
      }
      case 3 -> {
        return new UnaryMinus(gen(type, depth - 1), ansi);
      }
      default -> {
        DataType from = NUMERIC[rnd.nextInt(NUMERIC.length)];
        if (from.equals(type) || floating && from instanceof DecimalType) from = DataTypes.BooleanType;
        return new Cast(gen(from, depth - 1), type, Option.apply("UTC"), mode());
      }
    }
  }

  /** A decimal of {@code type}: a cast of decimal arithmetic (whose result types Spark derives), or of a number. */
  private Expression decimal(DataType type, int depth) {
    Expression source = switch (rnd.nextInt(8)) {
      case 0 -> new Add(gen(DEC92, depth - 1), gen(DEC52, depth - 1), context(mode()));
      case 1 -> new Subtract(gen(DEC52, depth - 1), gen(DEC92, depth - 1), context(mode()));
      case 2 -> new Multiply(gen(DEC52, depth - 1), gen(DEC52, depth - 1), context(mode()));
      case 3 -> new Divide(gen(DEC92, depth - 1), gen(DEC52, depth - 1), context(mode()));
      case 4 -> new Remainder(gen(DEC92, depth - 1), gen(DEC52, depth - 1), context(strictMode()));
      case 5 -> new UnaryMinus(gen(type, depth - 1), ansi);
      // a 128-bit quotient: decimal(19,4) / decimal(15,4) is decimal(38,19)
      case 6 -> new Divide(new Multiply(gen(DEC92, depth - 1), gen(DEC92, depth - 1), context(EvalMode.LEGACY())),
          new Multiply(gen(DEC52, depth - 1), gen(DEC92, depth - 1), context(EvalMode.LEGACY())), context(mode()));
      default -> gen(new DataType[] {DataTypes.IntegerType, DataTypes.LongType, DataTypes.BooleanType, DEC92,
          DEC52}[rnd.nextInt(5)], depth - 1);
    };
    return source.dataType().equals(type) ? source : new Cast(source, type, Option.apply("UTC"), mode());
  }
}
