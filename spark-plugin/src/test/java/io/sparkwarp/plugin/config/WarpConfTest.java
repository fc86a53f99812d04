package io.sparkwarp.plugin.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.plugin.rewrite.ExplainMode;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WarpConfTest {
  @Test
  void defaultsApplyWhenNothingIsSet() {
    WarpConf conf = WarpConf.of(Map.of());
    assertTrue(conf.get(WarpConf.ENABLED));
    assertEquals(BackendKind.AUTO, conf.get(WarpConf.BACKEND));
    assertEquals(ExplainMode.NOT_ON_GPU, conf.get(WarpConf.EXPLAIN));
    assertEquals(0, conf.get(WarpConf.CONCURRENT_GPU_TASKS));
    assertEquals(2L << 30, conf.get(WarpConf.TASK_DEVICE_RESERVE));
    assertTrue(conf.execEnabled("FilterExec"));
  }

  @Test
  void valuesParseCaseInsensitivelyWithByteSuffixes() {
    WarpConf conf = WarpConf.of(Map.of("spark.warp.backend", "Host", "spark.warp.memory.deviceLimit", "2g",
        "spark.warp.batch.targetBytes", "64m", "spark.warp.exec.FilterExec.enabled", "FALSE"));
    assertEquals(BackendKind.HOST, conf.get(WarpConf.BACKEND));
    assertEquals(2L << 30, conf.get(WarpConf.DEVICE_MEMORY_LIMIT));
    assertEquals(64L << 20, conf.get(WarpConf.BATCH_BYTES));
    assertFalse(conf.execEnabled("FilterExec"));
  }

  @Test
  void badValuesNameTheKeyAndWhatIsAllowed() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> WarpConf.validate(Map.of("spark.warp.explain", "BOGUS")));
    assertEquals("spark.warp.explain must be one of NONE, NOT_ON_GPU, ALL, not 'BOGUS'", e.getMessage());
    e = assertThrows(IllegalArgumentException.class,
        () -> WarpConf.validate(Map.of("spark.warp.concurrentGpuTasks", "-1")));
    assertTrue(e.getMessage().startsWith("spark.warp.concurrentGpuTasks must be an integer >= 0"), e.getMessage());
    e = assertThrows(IllegalArgumentException.class, () -> WarpConf.validate(Map.of("spark.warp.enable", "true")));
    assertTrue(e.getMessage().contains("unknown setting spark.warp.enable"), e.getMessage());
    WarpConf.validate(Map.of("spark.warp.enabled", "false", "spark.sql.shuffle.partitions", "3"));
  }

  /** Injected device allocation failures: all above a size, or the first few; a malformed entry names the key. */
  @Test
  void deviceAllocationFaultsParsePerOperator() {
    Map<String, FaultInjection.AllocationFault> faults = WarpConf.of(Map.of("spark.warp.test.failDeviceAllocations",
        "GpuFilterExec:16k, GpuHashAggregateExec:0:2")).get(WarpConf.TEST_FAIL_DEVICE_ALLOCATIONS);
    assertEquals(Map.of("GpuFilterExec", new FaultInjection.AllocationFault(16 << 10, 0),
        "GpuHashAggregateExec", new FaultInjection.AllocationFault(0, 2)), faults);
    java.util.function.LongPredicate firstTwo = faults.get("GpuHashAggregateExec").newCounter();
    assertEquals(java.util.List.of(true, true, false), java.util.List.of(firstTwo.test(8), firstTwo.test(8),
        firstTwo.test(8)));
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> WarpConf.validate(Map.of("spark.warp.test.failDeviceAllocations", "GpuFilterExec")));
    assertTrue(e.getMessage().startsWith("spark.warp.test.failDeviceAllocations must be a comma-separated list of "
        + "operator:bytes[:times]"), e.getMessage());
  }

  @Test
  void everyGpuOperatorAndExpressionFamilyHasASwitch() {
    for (ConfEntry<?> e : WarpConf.entries()) assertFalse(e.doc().isBlank(), e.key());
    assertTrue(WarpConf.entries().stream().anyMatch(e -> e.key().equals("spark.warp.exec.ProjectExec.enabled")));
    for (String family : io.sparkwarp.plugin.expr.ExpressionSettings.FAMILIES) {
      assertTrue(WarpConf.entries().stream().anyMatch(e -> e.key().equals(WarpConf.exprKey(family))), family);
    }
  }
}
