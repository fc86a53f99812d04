package io.sparkwarp.it.harness;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.plans.logical.GlobalLimit;
import org.apache.spark.sql.catalyst.plans.logical.LocalLimit;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.Offset;
import org.apache.spark.sql.catalyst.plans.logical.Project;
import org.apache.spark.sql.catalyst.plans.logical.Sort;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias;
import scala.jdk.javaapi.CollectionConverters;

/**
 * How a GPU answer is compared with the CPU answer. This class is the one place that states the rules:
 *
 * <ul>
 *   <li>Rows compare as a multiset, unless the query's top-level operator (below projections, limits and aliases)
 *       is an ORDER BY; then they compare in order.
 *   <li>Values are equal when Spark's CPU would print them the same: floats and doubles bit for bit after NaN
 *       canonicalisation, so NaN equals NaN and -0.0 differs from 0.0; decimals with their scale; binaries by
 *       content; nested rows, arrays and maps element by element.
 *   <li>Opt-in, for sums of floating-point values only (their order of additions differs): a relative tolerance
 *       for finite floats and doubles; NaN and infinities still compare exactly, and -0.0 equals 0.0.
 * </ul>
 */
public final class Answers {
  private static final HexFormat HEX = HexFormat.of();

  private Answers() {}

  /** Whether row order is part of the answer: the analyzed plan's top is a global sort. */
  public static boolean isOrdered(LogicalPlan analyzed) {
    LogicalPlan node = analyzed;
    while (node instanceof Project || node instanceof SubqueryAlias || node instanceof GlobalLimit
        || node instanceof LocalLimit || node instanceof Offset) {
      node = node.children().head();
    }
    return node instanceof Sort sort && sort.global();
  }

  /**
   * The first difference between the answers, described for a failure message, or empty when they are equal.
   *
   * @param relativeTolerance 0 for exact comparison; otherwise the allowed relative error of finite floats
   */
  public static Optional<String> difference(List<Row> cpu, List<Row> gpu, boolean ordered, double relativeTolerance) {
    List<Row> expected = ordered ? cpu : sorted(cpu);
    List<Row> actual = ordered ? gpu : sorted(gpu);
    String how = ordered ? "in order" : "sorted, as the query has no ORDER BY";
    for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
      if (!sameValue(expected.get(i), actual.get(i), relativeTolerance)) {
        return Optional.of(String.format("row %d differs (%s):%n  CPU %s%n  GPU %s%nCPU rows: %d, GPU rows: %d", i,
            how, render(expected.get(i)), render(actual.get(i)), cpu.size(), gpu.size()));
      }
    }
    if (expected.size() != actual.size()) {
      List<Row> longer = expected.size() > actual.size() ? expected : actual;
      return Optional.of(String.format("CPU has %d rows, GPU %d; first unmatched row (%s, from the %s): %s",
          cpu.size(), gpu.size(), how, longer == expected ? "CPU" : "GPU",
          render(longer.get(Math.min(expected.size(), actual.size())))));
    }
    return Optional.empty();
  }

  private static List<Row> sorted(List<Row> rows) {
    List<Row> copy = new ArrayList<>(rows);
    copy.sort(Comparator.comparing(Answers::render));
    return copy;
  }

  /** Equality of two values under the rules above. */
  static boolean sameValue(Object a, Object b, double relativeTolerance) {
    if (a == null || b == null) return a == b;
    if (a instanceof Double x && b instanceof Double y) return sameFloat(x, y, relativeTolerance);
    if (a instanceof Float x && b instanceof Float y) return sameFloat(x, y, relativeTolerance);
    if (a instanceof byte[] x && b instanceof byte[] y) return Arrays.equals(x, y);
    if (a instanceof Row x && b instanceof Row y) {
      return sameElements(asList(x), asList(y), relativeTolerance);
    }
    if (a instanceof scala.collection.Seq<?> x && b instanceof scala.collection.Seq<?> y) {
      return sameElements(CollectionConverters.asJava(x), CollectionConverters.asJava(y), relativeTolerance);
    }
    if (a instanceof scala.collection.Map<?, ?> x && b instanceof scala.collection.Map<?, ?> y) {
      return sameElements(entries(x), entries(y), relativeTolerance);
    }
    // everything else (integers, decimals with their scale, strings, dates, timestamps) by equals
    return a.getClass() == b.getClass() && a.equals(b);
  }

  private static boolean sameFloat(double x, double y, double relativeTolerance) {
    if (Double.doubleToLongBits(x) == Double.doubleToLongBits(y)) return true;
    if (relativeTolerance == 0 || !Double.isFinite(x) || !Double.isFinite(y)) return false;
    return Math.abs(x - y) <= relativeTolerance * Math.max(Math.abs(x), Math.abs(y));
  }

  private static boolean sameElements(List<?> x, List<?> y, double relativeTolerance) {
    if (x.size() != y.size()) return false;
    for (int i = 0; i < x.size(); i++) {
      if (!sameValue(x.get(i), y.get(i), relativeTolerance)) return false;
    }
    return true;
  }

  private static List<Object> asList(Row row) {
    List<Object> values = new ArrayList<>(row.length());
    for (int i = 0; i < row.length(); i++) values.add(row.get(i));
    return values;
  }

  /** A map's entries as [key, value] rows, in rendered-key order, so equal maps list them alike. */
  private static List<Row> entries(scala.collection.Map<?, ?> map) {
    return CollectionConverters.asJava(map).entrySet().stream()
        .map(entry -> RowFactory.create(entry.getKey(), entry.getValue()))
        .sorted(Comparator.comparing(Answers::render))
        .toList();
  }

  /** A value as failure messages show it and unordered answers are sorted by: distinct values render apart. */
  static String render(Object value) {
    if (value == null) return "null";
    if (value instanceof byte[] bytes) return "0x" + HEX.formatHex(bytes);
    if (value instanceof String s) return "'" + s + "'";
    if (value instanceof Row row) {
      return asList(row).stream().map(Answers::render).collect(Collectors.joining(", ", "[", "]"));
    }
    if (value instanceof scala.collection.Seq<?> seq) {
      return CollectionConverters.asJava(seq).stream().map(Answers::render).collect(Collectors.joining(", ", "Seq(", ")"));
    }
    if (value instanceof scala.collection.Map<?, ?> map) {
      return entries(map).stream().map(e -> render(e.get(0)) + " -> " + render(e.get(1)))
          .collect(Collectors.joining(", ", "Map(", ")"));
    }
    // Double and Float print NaN, Infinity and -0.0 distinctly; decimals print their scale
    return value.toString();
  }
}
