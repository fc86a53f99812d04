package io.sparkwarp.it;

import static io.sparkwarp.it.harness.GpuNodes.FILTER;
import static io.sparkwarp.it.harness.GpuNodes.GPU_TO_HOST;
import static io.sparkwarp.it.harness.GpuNodes.ONTO_GPU;
import static io.sparkwarp.it.harness.GpuNodes.PROJECT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sparkwarp.it.data.TextTables;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.QueryCheck;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * LIKE, NOT LIKE, StartsWith, EndsWith, Contains and RLIKE on the GPU: every predicate in a projection (its exact
 * value, nulls included) and as a filter, over words, near misses, metacharacters, multi-byte UTF-8 and line
 * terminators, on short, ordinary and long strings (the three layouts).
 */
class StringPredicateTest extends GpuTestBase {
  private static final List<String> COLUMNS = List.of("s", "short_s", "long_s");

  /** LIKE patterns as SQL literals: anchors, segments, underscores, escapes, multi-byte, the empty pattern. */
  static final List<String> LIKE_PATTERNS = List.of("'%green%'", "'forest%'", "'%BRASS'", "'%special%requests%'",
      "'%Customer%Complaints%'", "'PROMO%'", "'MEDIUM POLISHED%'", "'green'", "''", "'%'", "'%%'", "'_'", "'a_c%'",
      "'%é_%'", "'%_😀%'", "'__'", "'%a%b%c%'", "'%\\\\%%'", "'%\\\\_%'", "'%\\\\\\\\%'", "'\\\\%%'",
      "'%abab%ac'", "'%aab'", "'%\n'", "'%\r\n'", "'%é%€%'", "'%中文%'");

  /** Regular expressions as SQL literals (Spark SQL string escapes: '\\\\d' is the regex \d). */
  static final List<String> REGEXES = List.of("'green'", "'gre+n'", "'^forest'", "'BRASS$'", "'(?i)promo'",
      "'\\\\d{2,}'", "'a.c'", "'x|y|zz'", "'[^a-z ]'", "'é+'", "'\\\\s$'", "'^$'", "''", "'^a?$'", "'[0-9]{3}'",
      "'(special|Customer) +(requests|Complaints)'", "'c$'", "'^.$'", "'.'", "'😀|中'", "'[é€]'", "'\\\\w+\\\\W'",
      "'ab*?c'", "'(ab){2,3}'", "'[\\\\s\\\\d]'", "'^(a|b)+$'", "'.$'");

  @BeforeAll
  static void registerTexts() {
    TextTables.register(spark());
  }

  static Stream<Arguments> likePatterns() {
    return COLUMNS.stream().flatMap(c -> LIKE_PATTERNS.stream().map(p -> Arguments.of(c, p)));
  }

  @ParameterizedTest(name = "{0} LIKE {1}")
  @MethodSource("likePatterns")
  void likeInAProjectionAndAFilter(String column, String pattern) {
    assertGpuMatchesCpu("SELECT id, " + column + " LIKE " + pattern + ", " + column + " NOT LIKE " + pattern
        + " FROM texts", PROJECT, ONTO_GPU, GPU_TO_HOST);
    assertGpuMatchesCpu("SELECT id FROM texts WHERE " + column + " LIKE " + pattern, FILTER);
  }

  @ParameterizedTest(name = "ESCAPE {0}")
  @ValueSource(strings = {"SELECT id, s LIKE '%!%%' ESCAPE '!', s LIKE '%!_!!%' ESCAPE '!' FROM texts",
      "SELECT id, s LIKE 'a/_c%' ESCAPE '/', s LIKE '%//%' ESCAPE '/' FROM texts"})
  void customEscapeCharacters(String sql) {
    assertGpuMatchesCpu(sql, PROJECT);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"startswith(s, 'gre')", "endswith(s, 'sts')", "contains(s, 'é')", "contains(s, '')",
      "startswith(s, '')", "endswith(s, '😀')", "contains(long_s, 'Complaints requests')", "startswith(s, '%')",
      "contains(s, '\\\\')", "s = 'green'", "s <> 'forest'", "s IN ('green', 'é', '')", "s < 'b'",
      // TPC-H Q22's country codes: the first k characters against strings of k characters, as prefix tests
      "substring(s, 1, 2) IN ('gr', 'é€', 'fo', '😀x')",
      "substring(s, 1, 1) IN ('g', 'é', 'a', 'b', 'c', 'd', 'e', 'f', 'h', 'i', 'j', 'k')"})
  void stringFunctionsAndComparisons(String predicate) {
    assertGpuMatchesCpu("SELECT id, " + predicate + " FROM texts", PROJECT);
    assertGpuMatchesCpu("SELECT id, s FROM texts WHERE " + predicate, FILTER);
  }

  static Stream<Arguments> regexes() {
    return COLUMNS.stream().flatMap(c -> REGEXES.stream().map(p -> Arguments.of(c, p)));
  }

  @ParameterizedTest(name = "{0} RLIKE {1}")
  @MethodSource("regexes")
  void rlikeMatchesJavaRegexFind(String column, String regex) {
    assertGpuMatchesCpu("SELECT id, " + column + " RLIKE " + regex + ", regexp_like(" + column + ", " + regex
        + ") FROM texts", PROJECT);
    assertGpuMatchesCpu("SELECT id FROM texts WHERE " + column + " RLIKE " + regex, FILTER);
  }

  @Test
  void severalPatternsOnOneColumnAreOneMatcher() {
    assertGpuMatchesCpu("""
        SELECT id, s LIKE '%green%' OR s LIKE '%forest%' OR contains(s, 'BRASS') OR s LIKE '%é€%',
               NOT (s LIKE '%special%' OR s LIKE '%requests%')
        FROM texts""", PROJECT);
    assertGpuMatchesCpu("SELECT id FROM texts WHERE s LIKE '%green%' OR s LIKE 'forest%' OR s LIKE '%a_c'", FILTER);
  }

  @Test
  void insideLogicWithOtherPredicates() {
    assertGpuMatchesCpu("""
        SELECT id, s FROM texts
        WHERE (id % 3 = 0 AND s LIKE '%green%') OR (id > 2000 AND NOT s RLIKE '^[a-z]')
           OR (short_s = 'a' AND long_s LIKE '%forest%green%')""", FILTER);
    assertGpuMatchesCpu("""
        SELECT id, CASE WHEN s LIKE 'PROMO%' THEN 1 WHEN s RLIKE 'BRASS$' THEN 2 ELSE 0 END,
               IF(contains(s, 'é'), id, -id)
        FROM texts""", PROJECT);
  }

  @Test
  void nullPatternsGiveNull() {
    assertGpuMatchesCpu("SELECT id, s LIKE CAST(NULL AS STRING), s RLIKE CAST(NULL AS STRING) FROM texts", PROJECT);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"SELECT id FROM texts WHERE s LIKE '%\\\\x%'", "SELECT id FROM texts WHERE s LIKE 'a\\\\'",
      "SELECT id FROM texts WHERE s RLIKE '(ab'", "SELECT id FROM texts WHERE s RLIKE '[z-a]'"})
  void invalidPatternsFailAsOnTheCpu(String sql) {
    // the predicate stays on the CPU, so Spark raises its own error; the same one as without the plugin
    Throwable cpu = assertThrows(Throwable.class,
        () -> withConf(Map.of(QueryCheck.ENABLED, "false"), () -> spark().sql(sql).collectAsList()));
    Throwable gpu = assertThrows(Throwable.class, () -> spark().sql(sql).collectAsList());
    assertEquals(rootCause(cpu).getClass(), rootCause(gpu).getClass(), gpu.toString());
    assertEquals(rootCause(cpu).getMessage(), rootCause(gpu).getMessage());
  }

  private static Throwable rootCause(Throwable t) {
    while (t.getCause() != null && t.getCause() != t) t = t.getCause();
    return t;
  }

  @Test
  void unsupportedRegexesStayOnTheCpuWithTheirReason() {
    assertFallsBack("SELECT id FROM texts WHERE s RLIKE '(a)\\\\1'", "FilterExec", "backreference");
    assertFallsBack("SELECT id FROM texts WHERE s RLIKE 'a(?=b)'", "FilterExec", "lookahead");
    assertFallsBack("SELECT id FROM texts WHERE s RLIKE '\\\\p{L}'", "FilterExec", "\\p");
    assertFallsBack("SELECT id FROM texts WHERE s RLIKE 'a++'", "FilterExec", "possessive");
  }

  @Test
  void patternsFromColumnsStayOnTheCpu() {
    assertFallsBack("SELECT id FROM texts WHERE contains(s, short_s)", "FilterExec", "not a literal");
  }
}
