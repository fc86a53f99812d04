package io.sparkwarp.it.fuzz;

import io.sparkwarp.it.data.FuzzTables;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Random SQL over {@link FuzzTables}, reproducible from a seed: every query shape the plugin converts. Each shape is
 * one function from the generator to a query text; adding a shape is adding one to {@link #SHAPES}.
 */
final class QueryGenerator {
  /** The shapes, drawn uniformly. */
  private static final List<Function<QueryGenerator, String>> SHAPES = List.of(
      QueryGenerator::filterProject, QueryGenerator::join, QueryGenerator::subquery, QueryGenerator::grouped,
      QueryGenerator::unionAll);

  private static final String[] LIKE_PATTERNS = {"%a%", "a%", "%b", "a_b", "%\\\\%%", "%\\\\_%", "_", "", "%",
      "%日本%", "a%b%c", "%é_", "_😀%", "ab", "%a\\\\%b%", "__"};
  private static final String[] REGEXES = {"a+", "^a", "b$", "[a-c]{2}", "(ab|é)", "\\\\d", ".*😀.*", "a.c", "^$",
      "[%_]", "(?i)abc", "a|日本"};
  private static final String[] STRING_LITERALS = {"''", "'a'", "'abc'", "'a%b'", "'😀'", "'日本'", "' '", "'ABC'"};
  private static final String[] JOIN_TYPES = {"JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN", "LEFT SEMI JOIN",
      "LEFT ANTI JOIN"};
  private static final String[] HINTS = {"", "BROADCAST", "SHUFFLE_HASH", "MERGE"};
  /** Join keys: the same column on both sides, or an expression of one side's. */
  private static final String[][] KEYS = {{"l.k", "r.k"}, {"l.k2", "r.k2"}, {"l.s", "r.s"}, {"l.dt", "r.dt"},
      {"l.dec", "r.dec"}, {"l.k + 1", "r.k"}, {"l.k", "CAST(r.k2 AS INT)"}, {"l.ts", "r.ts"}, {"l.dec18", "r.dec18"}};

  private final Random r;

  QueryGenerator(long seed) {
    r = new Random(seed);
  }

  String next() {
    return SHAPES.get(r.nextInt(SHAPES.size())).apply(this);
  }

  private String filterProject() {
    String t = pick(FuzzTables.LEFT, FuzzTables.RIGHT);
    String where = r.nextInt(8) == 0 ? "" : " WHERE " + predicate("", 2);
    return orderedAndLimited(switch (r.nextInt(4)) {
      case 0 -> "SELECT count(*) FROM " + t + where;
      case 1 -> "SELECT 1 AS one FROM " + t + where;
      default -> "SELECT " + projections("", 1 + r.nextInt(4)) + " FROM " + t + where;
    });
  }

  private String join() {
    String type = pick(JOIN_TYPES);
    String hint = pick(HINTS);
    String build = type.equals("RIGHT JOIN") ? "l" : "r";
    String hintText = hint.isEmpty() ? "" : "/*+ " + hint + "(" + build + ") */ ";
    List<String> conditions = new ArrayList<>();
    for (int i = 0, n = 1 + r.nextInt(2); i < n; i++) {
      String[] key = KEYS[r.nextInt(KEYS.length)];
      conditions.add(key[0] + (r.nextInt(6) == 0 ? " <=> " : " = ") + key[1]);
    }
    if (r.nextInt(3) == 0) conditions.add("l.v " + pick("<", ">", "<>", "<=") + " r.v");
    if (r.nextInt(5) == 0) conditions.add(stringPredicate("r."));
    boolean rightVisible = !type.startsWith("LEFT SEMI") && !type.startsWith("LEFT ANTI");
    String select = switch (r.nextInt(3)) {
      case 0 -> "count(*)";
      case 1 -> projections("l.", 1 + r.nextInt(2)) + (rightVisible ? ", " + projections("r.", 1 + r.nextInt(2)) : "");
      default -> "l.id" + (rightVisible ? ", r.id" : "");
    };
    String where = r.nextBoolean() ? "" : " WHERE " + predicate("l.", 1);
    return orderedAndLimited("SELECT " + hintText + select + " FROM " + FuzzTables.LEFT + " l " + type + " "
        + FuzzTables.RIGHT + " r ON " + String.join(" AND ", conditions) + where);
  }

  private String subquery() {
    String inner = "SELECT " + (r.nextBoolean() ? "1" : "r.k") + " FROM " + FuzzTables.RIGHT + " r WHERE "
        + pick("r.k = l.k", "r.s = l.s", "r.k2 = l.k2") + " AND " + predicate("r.", 1);
    String test = switch (r.nextInt(4)) {
      case 0 -> "EXISTS (" + inner + ")";
      case 1 -> "NOT EXISTS (" + inner + ")";
      case 2 -> "l.k IN (SELECT k FROM " + FuzzTables.RIGHT + " WHERE " + predicate("", 1) + ")";
      default -> "l.s NOT IN (SELECT s FROM " + FuzzTables.RIGHT + " WHERE s IS NOT NULL AND " + predicate("", 1) + ")";
    };
    String select = r.nextBoolean() ? "count(*)" : projections("l.", 1 + r.nextInt(3));
    return orderedAndLimited("SELECT " + select + " FROM " + FuzzTables.LEFT + " l WHERE " + test);
  }

  /** Aggregates over a filter: global, or grouped by one or two keys, sometimes with HAVING. */
  private String grouped() {
    List<String> keys = new ArrayList<>();
    for (int i = 0, n = r.nextInt(3); i < n; i++) {
      String key = pick("k", "k2", "s", "dt", "b", "dec", "d", "v % 3", substring("s"));
      if (!keys.contains(key)) keys.add(key);
    }
    List<String> select = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) select.add(keys.get(i) + " AS g" + i);
    for (int i = 0, n = 1 + r.nextInt(4); i < n; i++) {
      select.add(pick("count(*)", "count(s)", "sum(v)", "sum(dec)", "sum(dec18)", "avg(v)", "avg(dec)", "min(v)",
          "max(k2)", "min(dt)", "max(ts)", "min(s)", "max(dec18)", "count(DISTINCT k2)", "sum(v * k)", "min(d)",
          "max(f)", "max(s)", "0.5 * sum(dec18)", "max(dec18 * dec)") + " AS a" + i);
    }
    String sql = "SELECT " + String.join(", ", select) + " FROM " + pick(FuzzTables.LEFT, FuzzTables.RIGHT)
        + (r.nextInt(4) == 0 ? "" : " WHERE " + predicate("", 2));
    if (!keys.isEmpty()) {
      sql += " GROUP BY " + String.join(", ", keys);
      if (r.nextInt(4) == 0) sql += " HAVING count(*) " + pick(">", "<", "=") + " " + r.nextInt(10);
    }
    return orderedAndLimited(sql);
  }

  /** Two filtered sides unioned, filtered or joined again above the union. */
  private String unionAll() {
    String union = "(SELECT k, s, v, dec FROM " + FuzzTables.LEFT + " WHERE " + predicate("", 1)
        + " UNION ALL SELECT k, s, v, dec FROM " + FuzzTables.RIGHT + " WHERE " + predicate("", 1) + ") u";
    return orderedAndLimited(r.nextBoolean()
        ? "SELECT " + pick("count(*)", "u.k, u.s, u.v * 2 AS v2") + " FROM " + union + " WHERE " + predicate("u.", 1)
        : "SELECT u.s, r.id FROM " + union + " JOIN " + FuzzTables.RIGHT + " r ON u.k = r.k AND u.s = r.s");
  }

  /** Sometimes ordered by every output column (a total order) and limited. */
  private String orderedAndLimited(String sql) {
    if (r.nextInt(4) != 0) return sql;
    int columns = outputColumns(sql);
    String order = IntStream.rangeClosed(1, columns).mapToObj(i -> i + (r.nextBoolean() ? " DESC" : "")
        + (r.nextBoolean() ? " NULLS FIRST" : " NULLS LAST")).collect(Collectors.joining(", "));
    return sql + " ORDER BY " + order + (r.nextBoolean() ? " LIMIT " + (1 + r.nextInt(30)) : "");
  }

  /** Top-level commas of the select list plus one. */
  private static int outputColumns(String sql) {
    String list = sql.substring("SELECT ".length(), sql.indexOf(" FROM "));
    if (list.startsWith("/*+")) list = list.substring(list.indexOf("*/") + 2);
    int depth = 0;
    int columns = 1;
    for (char c : list.toCharArray()) {
      if (c == '(') depth++;
      else if (c == ')') depth--;
      else if (c == ',' && depth == 0) columns++;
    }
    return columns;
  }

  private String projections(String p, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(switch (r.nextInt(13)) {
        case 0 -> p + "v + " + p + "k";
        case 1 -> p + "v * 2";
        case 2 -> p + "dec - 1.5";
        case 3 -> p + "d * 2.0";
        case 4 -> "CASE WHEN " + predicate(p, 0) + " THEN " + p + "v ELSE -1 END";
        case 5 -> p + "id % 7";
        case 6 -> "COALESCE(" + p + "k, " + p + "v)";
        case 7 -> substring(p + "s");
        default -> p + pick("s", "d", "f", "dec", "dec18", "dt", "ts", "b", "k", "k2", "v", "id");
      });
    }
    // a join's select list names both sides' columns: alias them apart
    return IntStream.range(0, out.size()).mapToObj(i -> out.get(i) + " AS " + (p.isEmpty() ? "c" : p.charAt(0)) + i)
        .collect(Collectors.joining(", "));
  }

  private String predicate(String p, int depth) {
    if (depth > 0 && r.nextInt(3) == 0) {
      String a = predicate(p, depth - 1);
      String b = predicate(p, depth - 1);
      return switch (r.nextInt(3)) {
        case 0 -> "(" + a + " AND " + b + ")";
        case 1 -> "(" + a + " OR " + b + ")";
        default -> "NOT (" + a + ")";
      };
    }
    return switch (r.nextInt(10)) {
      case 0, 1, 2 -> stringPredicate(p);
      case 3 -> String.format(pick("%sv", "%sk", "%sk2", "(%1$sv + %1$sk)", "%sv * 3", "%sid %% 5"), p) + " "
          + comparison() + " " + (r.nextInt(21) - 10);
      case 4 -> p + pick("d", "f") + " " + comparison() + " "
          + pick("CAST('NaN' AS DOUBLE)", "0.0", "-0.0", "CAST('Infinity' AS DOUBLE)", "1.5");
      case 5 -> p + pick("dec", "dec18") + " " + comparison() + " " + pick("0", "1.25", "-3.5");
      case 6 -> p + pick("k", "s", "d", "dec", "dt", "v") + pick(" IS NULL", " IS NOT NULL");
      case 7 -> p + "k " + pick("IN", "NOT IN") + " (" + (r.nextInt(20)) + ", " + FuzzTables.HOT_KEY + ", "
          + (r.nextBoolean() ? "NULL" : "7") + ")";
      case 8 -> p + pick("dt > DATE '2020-01-05'", "ts <= TIMESTAMP '2020-01-01 05:00:00'", "dt IS NULL");
      default -> pick("", "NOT ") + p + "b";
    };
  }

  private String stringPredicate(String p) {
    String s = p + "s";
    return switch (r.nextInt(8)) {
      case 0 -> s + pick(" LIKE ", " NOT LIKE ") + "'" + pick(LIKE_PATTERNS) + "'";
      case 1 -> s + pick(" RLIKE ", " NOT RLIKE ") + "'" + pick(REGEXES) + "'";
      case 2 -> pick("startswith", "endswith", "contains") + "(" + s + ", " + pick(STRING_LITERALS) + ")";
      case 3 -> s + pick(" = ", " <> ", " <=> ", " < ", " >= ") + pick(STRING_LITERALS);
      case 4 -> s + pick(" IN ", " NOT IN ") + "(" + pick(STRING_LITERALS) + ", " + pick(STRING_LITERALS) + ")";
      case 5 -> s + " LIKE '" + pick(LIKE_PATTERNS) + "' ESCAPE '!'";
      case 6 -> substring(s) + pick(" = ", " <> ", " < ") + pick(STRING_LITERALS);
      default -> s + pick(" LIKE ", " NOT LIKE ") + "'" + pick(LIKE_PATTERNS) + "'";
    };
  }

  /**
   * Spark's substring forms over a string column with literal arguments: positions from the start, 0, from the end
   * and past the end; empty, negative and open lengths.
   */
  private String substring(String s) {
    return switch (r.nextInt(3)) {
      case 0 -> "substring(" + s + ", " + pick("1", "0", "2", "-1", "-3", "9") + ", " + pick("1", "2", "3", "0", "-1")
          + ")";
      case 1 -> "substr(" + s + ", " + pick("2", "-2", "0") + ")";
      default -> "left(" + s + ", " + pick("1", "2", "0") + ")";
    };
  }

  private String comparison() {
    return pick("=", "<>", "<", "<=", ">", ">=", "<=>");
  }

  private String pick(String... options) {
    return options[r.nextInt(options.length)];
  }
}
