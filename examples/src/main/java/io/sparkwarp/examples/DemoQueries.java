package io.sparkwarp.examples;

import io.sparkwarp.examples.tpch.TpchQueries;
import java.util.List;

/**
 * The demo's TPC-H queries: filters, joins and string equality, each ordered on a unique key so the CPU and GPU
 * answers can be compared row by row.
 */
public final class DemoQueries {
  /** A named SQL query over the TPC-H views. */
  public record DemoQuery(String name, String sql) {}

  /** TPC-H queries the demo runs: joins, filters and string predicates of every kind the plugin converts. */
  public static final DemoQuery Q6 = TpchQueries.Q6;
  public static final DemoQuery Q3 = TpchQueries.Q3;
  public static final DemoQuery Q14 = TpchQueries.Q14;
  public static final DemoQuery Q9 = TpchQueries.Q9;
  public static final DemoQuery Q18 = TpchQueries.Q18;
  public static final DemoQuery Q13 = TpchQueries.Q13;
  public static final DemoQuery Q16 = TpchQueries.Q16;
  public static final DemoQuery Q20 = TpchQueries.Q20;

  /** An equi-join of lineitem and orders with filters on both sides (Q4's question as a join). */
  public static final DemoQuery LATE_ORDERS = new DemoQuery("lineitem-orders join", """
      SELECT o_orderpriority, count(*) AS late_lines, sum(l_extendedprice) AS late_value
      FROM orders JOIN lineitem ON l_orderkey = o_orderkey
      WHERE l_commitdate < l_receiptdate
        AND o_orderdate >= DATE '1993-07-01' AND o_orderdate < DATE '1993-10-01'
      GROUP BY o_orderpriority
      ORDER BY o_orderpriority""");

  /** String equality and IN without LIKE (Q12's filter). */
  public static final DemoQuery SHIP_MODES = new DemoQuery("string equality filter", """
      SELECT l_shipmode, count(*) AS lines, sum(l_quantity) AS quantity
      FROM lineitem
      WHERE l_shipmode IN ('MAIL', 'SHIP') AND l_shipinstruct = 'DELIVER IN PERSON'
        AND l_returnflag <> 'R'
      GROUP BY l_shipmode
      ORDER BY l_shipmode""");

  /** A regular expression over lineitem's comments: Java's find() semantics, on the GPU as an automaton. */
  public static final DemoQuery COMMENT_REGEX = new DemoQuery("lineitem RLIKE filter", """
      SELECT l_shipmode, count(*) AS lines, sum(l_quantity) AS quantity
      FROM lineitem
      WHERE l_comment RLIKE '(furious|sly|careful)ly (final|ironic) (deposits|packages)'
      GROUP BY l_shipmode
      ORDER BY l_shipmode""");

  public static final List<DemoQuery> ALL = List.of(Q6, Q3, Q9, Q14, Q18, LATE_ORDERS, SHIP_MODES, Q13, Q16, Q20,
      COMMENT_REGEX);

  private DemoQueries() {}

  /**
   * The queries named in a comma-separated list of field names ({@code Q13,COMMENT_REGEX}), or all for "all".
   *
   * @throws IllegalArgumentException for an unknown name
   */
  public static List<DemoQuery> named(String names) {
    if (names.equals("all")) return ALL;
    List<DemoQuery> out = new java.util.ArrayList<>();
    for (String name : names.split(",")) {
      try {
        out.add((DemoQuery) DemoQueries.class.getField(name.strip()).get(null));
      } catch (NoSuchFieldException | IllegalAccessException e) {
        throw new IllegalArgumentException("no demo query " + name, e);
      }
    }
    return out;
  }
}
