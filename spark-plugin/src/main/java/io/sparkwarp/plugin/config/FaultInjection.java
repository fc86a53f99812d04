package io.sparkwarp.plugin.config;

import java.util.Set;

/**
 * Failures the tests inject to check that the plugin's own errors never fail a query Spark could run: an exception
 * while tagging the named Spark operators ({@link WarpConf#TEST_FAIL_TAGGING}), or while a named GPU operator sets
 * up a partition ({@link WarpConf#TEST_FAIL_TASK_SETUP}). Both settings are empty outside tests.
 */
public record FaultInjection(Set<String> tagging, Set<String> taskSetup) implements java.io.Serializable {
  public static final FaultInjection NONE = new FaultInjection(Set.of(), Set.of());

  public static FaultInjection of(WarpConf conf) {
    return new FaultInjection(conf.get(WarpConf.TEST_FAIL_TAGGING), conf.get(WarpConf.TEST_FAIL_TASK_SETUP));
  }

  /** Throws when tagging of Spark operator {@code sparkName} is to fail. */
  public void beforeTagging(String sparkName) {
    if (tagging.contains(sparkName)) throw new IllegalStateException("injected failure while tagging " + sparkName);
  }

  /** Throws when {@code gpuOperator}'s per-partition setup is to fail. */
  public void beforeTaskSetup(String gpuOperator) {
    if (taskSetup.contains(gpuOperator)) {
      throw new IllegalStateException("injected failure while setting up " + gpuOperator);
    }
  }
}
