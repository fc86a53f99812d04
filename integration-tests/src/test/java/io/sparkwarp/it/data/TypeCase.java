package io.sparkwarp.it.data;

import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * Each type the plugin supports, as the standard tables hold it: columns {@code <token>_a} and {@code <token>_b}
 * of that type, and SQL literals of it for comparisons and IN lists.
 */
public enum TypeCase {
  BOOLEAN("bool", Gens::booleans, "true", "false"),
  BYTE("byte", Gens::bytes, "CAST(3 AS TINYINT)", "CAST(-128 AS TINYINT)"),
  SHORT("short", Gens::shorts, "CAST(3 AS SMALLINT)", "CAST(32767 AS SMALLINT)"),
  INT("int", Gens::ints, "3", "-2147483648"),
  LONG("long", Gens::longs, "3L", "9223372036854775807L"),
  FLOAT("float", Gens::floats, "CAST(1.5 AS FLOAT)", "CAST('NaN' AS FLOAT)"),
  DOUBLE("double", Gens::doubles, "-0.0D", "CAST('Infinity' AS DOUBLE)"),
  DATE("date", Gens::dates, "DATE '2020-01-03'", "DATE '0001-01-01'"),
  TIMESTAMP("ts", Gens::timestamps, "TIMESTAMP '2020-01-01 03:00:00'", "TIMESTAMP '1969-12-31 23:59:59.999999'"),
  DECIMAL("dec", () -> Gens.decimals(18, 4), "CAST(1.5 AS DECIMAL(18,4))", "CAST(0 AS DECIMAL(18,4))"),
  STRING("str", Gens::strings, "'ab'", "'😀'"),
  BINARY("bin", Gens::binaries, "X'01'", "X''");

  private final String token;
  private final Supplier<ColumnGen> gen;
  private final String literal;
  private final String otherLiteral;

  TypeCase(String token, Supplier<ColumnGen> gen, String literal, String otherLiteral) {
    this.token = token;
    this.gen = gen;
    this.literal = literal;
    this.otherLiteral = otherLiteral;
  }

  public String a() {
    return token + "_a";
  }

  public String b() {
    return token + "_b";
  }

  /** A value of this type that the generators produce often. */
  public String literal() {
    return literal;
  }

  /** Another value of this type, an edge case where the type has one. */
  public String otherLiteral() {
    return otherLiteral;
  }

  ColumnGen gen() {
    return gen.get();
  }

  /** Every type with every sort direction and null order, for ORDER BY tests: (TypeCase, "ASC NULLS FIRST"), ... */
  public static Stream<Arguments> withSortDirections() {
    return Stream.of(values()).flatMap(t -> Stream.of("ASC NULLS FIRST", "ASC NULLS LAST", "DESC NULLS FIRST",
        "DESC NULLS LAST").map(d -> Arguments.of(t, d)));
  }
}
