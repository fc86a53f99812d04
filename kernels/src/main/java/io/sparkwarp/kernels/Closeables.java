package io.sparkwarp.kernels;

import java.util.List;

/** Resource helpers in the spirit of spark-rapids' Arm: close everything, or close on failure. */
public final class Closeables {
  private Closeables() {}

  /** Closes every resource even when some throw; rethrows the first failure with the others suppressed. */
  public static void closeAll(List<? extends AutoCloseable> resources) {
    RuntimeException first = null;
    for (AutoCloseable r : resources) {
      if (r == null) continue;
      try {
        r.close();
      } catch (Exception e) {
        if (first == null) first = e instanceof RuntimeException re ? re : new RuntimeException(e);
        else first.addSuppressed(e);
      }
    }
    if (first != null) throw first;
  }
}
