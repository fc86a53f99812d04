package io.sparkwarp.examples.tpch;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.trino.tpch.TpchTable;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.Test;

/** The Spark types chosen for TPC-H columns. */
class TpchTablesTest {
  @Test
  void lineitemHasLongKeysMoneyAsDecimalAndDates() {
    StructType schema = TpchTables.schema(TpchTable.LINE_ITEM);
    assertEquals(DataTypes.LongType, schema.apply("l_orderkey").dataType());
    assertEquals(DataTypes.IntegerType, schema.apply("l_linenumber").dataType());
    assertEquals(DataTypes.createDecimalType(12, 2), schema.apply("l_extendedprice").dataType());
    assertEquals(DataTypes.createDecimalType(12, 2), schema.apply("l_discount").dataType());
    assertEquals(DataTypes.DateType, schema.apply("l_shipdate").dataType());
    assertEquals(DataTypes.StringType, schema.apply("l_shipmode").dataType());
    assertEquals(16, schema.size());
  }
}
