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

  /** TPC-H Q9: six tables joined, parts chosen by a {@code %green%} LIKE on their names. */
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

  /** TPC-H Q13: customers by order count; orders with '%special%requests%' comments do not count. */
  public static final DemoQuery Q13 = new DemoQuery("Q13 customer distribution", """
      SELECT c_count, count(*) AS custdist
      FROM (SELECT c_custkey, count(o_orderkey) AS c_count
            FROM customer LEFT OUTER JOIN orders
              ON c_custkey = o_custkey AND o_comment NOT LIKE '%special%requests%'
            GROUP BY c_custkey) AS c_orders
      GROUP BY c_count
      ORDER BY custdist DESC, c_count DESC""");

  /** TPC-H Q16: parts by supplier count, without 'MEDIUM POLISHED%' types or complained-about suppliers. */
  public static final DemoQuery Q16 = new DemoQuery("Q16 parts/supplier relationship", """
      SELECT p_brand, p_type, p_size, count(DISTINCT ps_suppkey) AS supplier_cnt
      FROM partsupp, part
      WHERE p_partkey = ps_partkey AND p_brand <> 'Brand#45' AND p_type NOT LIKE 'MEDIUM POLISHED%'
        AND p_size IN (49, 14, 23, 45, 19, 3, 36, 9)
        AND ps_suppkey NOT IN (SELECT s_suppkey FROM supplier WHERE s_comment LIKE '%Customer%Complaints%')
      GROUP BY p_brand, p_type, p_size
      ORDER BY supplier_cnt DESC, p_brand, p_type, p_size""");

  /** TPC-H Q20: Canadian suppliers with excess stock of 'forest%' parts. */
  public static final DemoQuery Q20 = new DemoQuery("Q20 potential part promotion", """
      SELECT s_name, s_address
      FROM supplier, nation
      WHERE s_suppkey IN (
          SELECT ps_suppkey FROM partsupp
          WHERE ps_partkey IN (SELECT p_partkey FROM part WHERE p_name LIKE 'forest%')
            AND ps_availqty > (SELECT 0.5 * sum(l_quantity) FROM lineitem
                               WHERE l_partkey = ps_partkey AND l_suppkey = ps_suppkey
                                 AND l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'))
        AND s_nationkey = n_nationkey AND n_name = 'CANADA'
      ORDER BY s_name""");

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
