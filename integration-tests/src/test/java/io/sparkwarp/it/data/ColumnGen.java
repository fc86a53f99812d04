package io.sparkwarp.it.data;

import java.util.List;
import java.util.Random;
import org.apache.spark.sql.types.DataType;

/**
 * How one column's values are made: a Spark type, the type's edge cases (special values, each appearing often),
 * ordinary values, and nulls. Deterministic for a given {@link Random}. Immutable; {@link Gens} makes them.
 */
public final class ColumnGen {
  /** Ordinary values: from the column's own random source, or from the row number for keys. */
  @FunctionalInterface
  public interface Values {
    Object next(Random random, int row);
  }

  static final double DEFAULT_NULL_RATE = 0.1;
  static final double DEFAULT_SPECIAL_RATE = 0.15;

  private final DataType type;
  private final List<Object> specials;
  private final Values ordinary;
  private final double nullRate;

  ColumnGen(DataType type, List<Object> specials, Values ordinary) {
    this(type, specials, ordinary, DEFAULT_NULL_RATE);
  }

  private ColumnGen(DataType type, List<Object> specials, Values ordinary, double nullRate) {
    this.type = type;
    this.specials = List.copyOf(specials);
    this.ordinary = ordinary;
    this.nullRate = nullRate;
  }

  public DataType type() {
    return type;
  }

  /** The edge cases this column mixes in. */
  public List<Object> specials() {
    return specials;
  }

  /** The same values with this share of nulls instead (0 for none, 1 for a column of nulls only). */
  public ColumnGen nulls(double rate) {
    if (rate < 0 || rate > 1) throw new IllegalArgumentException("null rate must be in [0, 1]: " + rate);
    return new ColumnGen(type, specials, ordinary, rate);
  }

  Object next(Random random, int row) {
    double roll = random.nextDouble();
    if (roll < nullRate) return null;
    if (!specials.isEmpty() && roll < nullRate + DEFAULT_SPECIAL_RATE) {
      return specials.get(random.nextInt(specials.size()));
    }
    return ordinary.next(random, row);
  }
}
