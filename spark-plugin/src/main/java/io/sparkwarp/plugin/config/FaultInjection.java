package io.sparkwarp.plugin.config;

import java.util.Map;
import java.util.Set;
import java.util.function.LongPredicate;

/**
 * Failures the tests inject to check that the plugin's own errors never fail a query Spark could run: an exception
 * while tagging the named Spark operators ({@link WarpConf#TEST_FAIL_TAGGING}) or building their GPU versions
 * ({@link WarpConf#TEST_FAIL_CONVERSION}), or while a named GPU operator sets up a partition
 * ({@link WarpConf#TEST_FAIL_TASK_SETUP}); and device memory running out inside a named GPU
 * operator's steps ({@link WarpConf#TEST_FAIL_DEVICE_ALLOCATIONS}), or inside the making of a broadcast join's device
 * build ({@link #BROADCAST_BUILD}), to check that it retries and splits. All these settings are empty outside tests.
 */
public record FaultInjection(Set<String> tagging, Set<String> conversion, Set<String> taskSetup,
    Map<String, AllocationFault> allocations) implements java.io.Serializable {
  public static final FaultInjection NONE = new FaultInjection(Set.of(), Set.of(), Set.of(), Map.of());
  /**
   * The name under which allocations fail while a broadcast join's device build is made (each task that makes one
   * counts its own failures): apart from the join's name, which names the steps over its stream batches.
   */
  public static final String BROADCAST_BUILD = "BroadcastBuild";

  /**
   * Allocations of more than {@code aboveBytes} fail as if the device were full: the first {@code times} of them in
   * each partition of the operator, or all of them when {@code times} is 0.
   */
  public record AllocationFault(long aboveBytes, int times) implements java.io.Serializable {
    /** The sizes that fail, counting the failures of one partition. */
    public LongPredicate newCounter() {
      int[] failed = {0};
      return bytes -> bytes > aboveBytes && (times == 0 || failed[0]++ < times);
    }
  }

  public static FaultInjection of(WarpConf conf) {
    return new FaultInjection(conf.get(WarpConf.TEST_FAIL_TAGGING), conf.get(WarpConf.TEST_FAIL_CONVERSION),
        conf.get(WarpConf.TEST_FAIL_TASK_SETUP), conf.get(WarpConf.TEST_FAIL_DEVICE_ALLOCATIONS));
  }

  /** Parses {@code operator:bytes[:times]} entries, comma-separated. */
  static Map<String, AllocationFault> parseAllocationFaults(String value) {
    Map<String, AllocationFault> faults = new java.util.HashMap<>();
    for (String entry : value.split(",")) {
      if (entry.isBlank()) continue;
      String[] parts = entry.strip().split(":");
      int times = parts.length == 3 ? Integer.parseInt(parts[2]) : 0;
      if (parts.length < 2 || parts.length > 3 || times < 0) throw new IllegalArgumentException(entry);
      faults.put(parts[0], new AllocationFault(ConfEntry.parseBytes(parts[1]), times));
    }
    return Map.copyOf(faults);
  }

  /** Throws when tagging of Spark operator {@code sparkName} is to fail. */
  public void beforeTagging(String sparkName) {
    if (tagging.contains(sparkName)) throw new IllegalStateException("injected failure while tagging " + sparkName);
  }

  /** Throws when building the GPU version of Spark operator {@code sparkName} is to fail. */
  public void beforeConversion(String sparkName) {
    if (conversion.contains(sparkName)) {
      throw new IllegalStateException("injected failure while building the GPU version of " + sparkName);
    }
  }

  /** Throws when {@code gpuOperator}'s per-partition setup is to fail. */
  public void beforeTaskSetup(String gpuOperator) {
    if (taskSetup.contains(gpuOperator)) {
      throw new IllegalStateException("injected failure while setting up " + gpuOperator);
    }
  }

  /** The allocation sizes that fail in one partition of {@code gpuOperator}'s steps; null when none do. */
  public LongPredicate allocationFailures(String gpuOperator) {
    AllocationFault fault = allocations.get(gpuOperator);
    return fault == null ? null : fault.newCounter();
  }
}
