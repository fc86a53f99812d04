package io.sparkwarp.examples;

import java.util.List;

/**
 * The demo's TPC-H queries: filters, joins and string equality, each ordered on a unique key so the CPU and GPU
 * answers can be compared row by row.
 */
public final class DemoQueries {
  /** A named SQL query over the TPC-H views. */
  public record DemoQuery(String name, String sql) {}

  /** TPC-H Q6: a filter over lineitem's dates, discounts and quantities, summed. */
  public static final DemoQuery Q6 = new DemoQuery("Q6 forecasting revenue change", """
      SELECT sum(l_extendedprice * l_discount) AS revenue
      FROM lineitem
      WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'
        AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24""");

  /** TPC-H Q3: customer, orders and lineitem joined; the order key breaks ties in the top 10. */
  public static final DemoQuery Q3 = new DemoQuery("Q3 shipping priority", """
      SELECT l_orderkey, sum(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate, o_shippriority
      FROM customer, orders, lineitem
      WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
        AND o_orderdate < DATE '1995-03-15' AND l_shipdate > DATE '1995-03-15'
      GROUP BY l_orderkey, o_orderdate, o_shippriority
      ORDER BY revenue DESC, o_orderdate, l_orderkey
      LIMIT 10""");

  /** TPC-H Q14: lineitem joined with part; the promotion test is a prefix LIKE, which Spark makes StartsWith. */
  public static final DemoQuery Q14 = new DemoQuery("Q14 promotion effect", """
      SELECT 100.00 * sum(CASE WHEN p_type LIKE 'PROMO%' THEN l_extendedprice * (1 - l_discount) ELSE 0 END)
             / sum(l_extendedprice * (1 - l_discount)) AS promo_revenue
      FROM lineitem, part
      WHERE l_partkey = p_partkey AND l_shipdate >= DATE '1995-09-01' AND l_shipdate < DATE '1995-10-01'""");

  /** TPC-H Q9: six tables joined; the part name LIKE stays on the CPU until the string predicates land. */
  public static final DemoQuery Q9 = new DemoQuery("Q9 product type profit", """
      SELECT nation, o_year, sum(amount) AS sum_profit
      FROM (SELECT n_name AS nation, year(o_orderdate) AS o_year,
                   l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity AS amount
            FROM part, supplier, lineitem, partsupp, orders, nation
            WHERE s_suppkey = l_suppkey AND ps_suppkey = l_suppkey AND ps_partkey = l_partkey
              AND p_partkey = l_partkey AND o_orderkey = l_orderkey AND s_nationkey = n_nationkey
              AND p_name LIKE '%green%') AS profit
      GROUP BY nation, o_year
      ORDER BY nation, o_year DESC""");

  /** TPC-H Q18: large orders, an IN subquery over an aggregate (a semi join) and three joins. */
  public static final DemoQuery Q18 = new DemoQuery("Q18 large volume customer", """
      SELECT c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice, sum(l_quantity)
      FROM customer, orders, lineitem
      WHERE o_orderkey IN (SELECT l_orderkey FROM lineitem GROUP BY l_orderkey HAVING sum(l_quantity) > 300)
        AND c_custkey = o_custkey AND o_orderkey = l_orderkey
      GROUP BY c_name, c_custkey, o_orderkey, o_orderdate, o_totalprice
      ORDER BY o_totalprice DESC, o_orderdate, o_orderkey
      LIMIT 100""");

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

  public static final List<DemoQuery> ALL = List.of(Q6, Q3, Q9, Q14, Q18, LATE_ORDERS, SHIP_MODES);

  private DemoQueries() {}
}
