package io.sparkwarp.it;

import io.sparkwarp.examples.DemoQueries;
import io.sparkwarp.it.data.TpchViews;
import io.sparkwarp.it.harness.GpuTestBase;
import io.sparkwarp.it.harness.JoinStrategy;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * TPC-H joins over snappy Parquet at a small scale factor: lineitem with orders shuffled both ways, lineitem with a
 * filtered part broadcast, and Q3's two joins as Spark plans them.
 */
class TpchJoinTest extends GpuTestBase {
  @BeforeAll
  static void registerTpch() {
    TpchViews.register(spark());
  }

  @ParameterizedTest
  @EnumSource(names = {"SHUFFLED_HASH", "SORT_MERGE"})
  void lineitemWithOrdersOnOrderKey(JoinStrategy strategy) {
    strategy.check("SELECT " + strategy.hint("orders") + """
         l_orderkey, l_linenumber, o_orderdate, o_orderpriority, l_extendedprice
        FROM lineitem JOIN orders ON l_orderkey = o_orderkey
        WHERE o_orderdate >= DATE '1995-01-01' AND o_orderdate < DATE '1995-04-01' AND l_commitdate < l_receiptdate
        """).matchesCpu();
  }

  @Test
  void partBroadcastToLineitemOnPartKey() {
    JoinStrategy strategy = JoinStrategy.BROADCAST;
    strategy.check("SELECT " + strategy.hint("part") + """
         p_partkey, p_type, l_orderkey, l_linenumber, l_quantity
        FROM part JOIN lineitem ON p_partkey = l_partkey
        WHERE p_brand = 'Brand#23' AND p_size < 25 AND l_shipdate >= DATE '1996-01-01'
        """).matchesCpu();
  }

  @Test
  void q3AsSparkPlansIt() {
    // customer, orders and lineitem are small enough that Spark broadcasts both joins' build sides
    query(DemoQueries.Q3.sql()).cpuNodes(JoinStrategy.BROADCAST.sparkNode())
        .gpuNodes(JoinStrategy.BROADCAST.gpuNode()).matchesCpu();
  }
}
