package io.sparkwarp.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.DemoQueries.DemoQuery;
import io.sparkwarp.examples.tpch.TpchTables;
import io.trino.tpch.TpchTable;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo's data preparation, query runs and report at a tiny scale factor, in plain local Spark without the
 * plugin (TpchBenchmarkTest runs the same queries with it).
 */
class TpchDemoTest {
  private static SparkSession spark;

  @TempDir static Path data;

  @BeforeAll
  static void startSpark() {
    spark = SparkSession.builder().master("local[2]").config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "2").getOrCreate();
  }

  @AfterAll
  static void stopSpark() {
    spark.stop();
  }

  @Test
  void runsEveryQueryReportsMatchesAndThenReusesTheData() {
    TpchDemo.Args args = TpchDemo.Args.parse("0.002", data.toString(), "host", "1");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    assertTrue(TpchDemo.run(spark, args, new PrintStream(out, true, StandardCharsets.UTF_8)));
    String report = out.toString(StandardCharsets.UTF_8);
    assertTrue(report.contains("generated into"), report);
    for (DemoQuery query : DemoQueries.ALL) {
      assertTrue(report.contains("== " + query.name() + " ("), query.name() + " missing from\n" + report);
    }
    // Q20 asks for Canadian suppliers of 'forest%' parts with excess stock: none exist below SF 0.1
    assertFalse(report.replace("== " + DemoQueries.Q20.name() + " (0 rows)", "").contains("(0 rows)"),
        "every other demo query should find rows at this scale\n" + report);
    // this session has no plugin: the report says so rather than calling the second run "gpu"
    assertTrue(report.contains("sparkwarp is inactive (device none, spark.plugins does not name"), report);
    assertEquals(DemoQueries.ALL.size(), report.lines().filter(line -> line.startsWith("run 1: plugin off ")
        && line.contains(" ms, plugin inactive ")).count(), report);
    assertFalse(report.contains("run 1: cpu "), report);
    assertEquals(DemoQueries.ALL.size(), report.lines().filter("results match"::equals).count(), report);
    assertTrue(report.contains("all results matched"), report);
    assertTrue(report.contains("Filter"), "the report shows executed plans\n" + report);

    assertFalse(TpchTables.writeAndRegister(spark, 0.002, args.tablesDir()), "the second run reuses the files");
    for (TpchTable<?> table : TpchTable.getTables()) {
      assertEquals(types(TpchTables.schema(table)), types(spark.table(table.getTableName()).schema()),
          table.getTableName() + " as written");
    }

    CpuGpuRun repeated = CpuGpuRun.run(spark, DemoQueries.Q6, 2);
    assertTrue(repeated.matched());
    assertEquals(2, repeated.cpuMillis().size());
    assertEquals(2, repeated.gpuMillis().size());
    assertEquals(1, repeated.rows());
  }

  private static List<DataType> types(StructType schema) {
    return Arrays.stream(schema.fields()).map(StructField::dataType).toList();
  }

  @Test
  void rejectsBadArgumentsWithTheUsage() {
    for (String[] bad : new String[][] {{"zero"}, {"-1"}, {"0.1", "d", "gpu"}, {"0.1", "d", "host", "0"},
        {"0.1", "d", "host", "1", "Q99"}, {"0.1", "d", "host", "1", "Q6", "extra"}}) {
      IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TpchDemo.Args.parse(bad));
      assertTrue(e.getMessage().startsWith("usage: TpchDemo"), e.getMessage());
    }
  }
}
