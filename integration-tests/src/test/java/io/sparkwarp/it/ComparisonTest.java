package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.GPU_TO_HOST;
import static io.sparkwarp.it.harness.GpuNodes.PARQUET_SCAN;
import static io.sparkwarp.it.harness.GpuNodes.PROJECT;

import io.sparkwarp.it.data.TypeCase;
import io.sparkwarp.it.harness.GpuTestBase;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Comparisons, null-safe equality, IN lists and null tests over every supported type, computed in projections
 * (every operator's exact result, nulls included) and used as filters.
 */
class ComparisonTest extends GpuTestBase {
  /** Filter templates: {a} and {b} are columns of one type, {lit} and {other} literals of it. */
  private static final List<String> PREDICATES = List.of("{a} < {b}", "{a} = {lit}", "{a} <=> {b}",
      "{a} IN ({lit}, {other})", "NOT ({a} >= {other})");

  @ParameterizedTest
  @EnumSource(TypeCase.class)
  void everyComparisonInAProjection(TypeCase type) {
    assertGpuMatchesCpu(fill(type, """
        SELECT id, {a} = {b}, {a} <> {b}, {a} < {b}, {a} <= {b}, {a} > {b}, {a} >= {b}, {a} <=> {b},
               {a} = {lit}, {a} < {lit}, {other} >= {a}, {a} IN ({lit}, {other}), {a} NOT IN ({lit}, {other}),
               {a} IS NULL, {b} IS NOT NULL
        FROM all_types"""), PROJECT, PARQUET_SCAN, GPU_TO_HOST);
  }

  static Stream<Arguments> typesAndPredicates() {
    return Arrays.stream(TypeCase.values()).flatMap(type -> PREDICATES.stream().map(p -> Arguments.of(type, p)));
  }

  @ParameterizedTest(name = "{0}: {1}")
  @MethodSource("typesAndPredicates")
  void filter(TypeCase type, String predicate) {
    assertGpuMatchesCpu(fill(type, "SELECT * FROM all_types WHERE " + predicate), FILTER, PARQUET_SCAN, GPU_TO_HOST);
  }

  private static String fill(TypeCase type, String template) {
    return template.replace("{a}", type.a()).replace("{b}", type.b()).replace("{lit}", type.literal())
        .replace("{other}", type.otherLiteral());
  }
}
