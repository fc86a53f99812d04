package io.sparkwarp.kernels;

import java.util.Locale;

/** Which implementation of the kernel-level primitives runs a query's device work. */
public enum BackendKind {
  /** CUDA when a usable device and the kernels are present; otherwise no backend (the plugin leaves plans alone). */
  AUTO,
  /** The CUDA kernels on an NVIDIA GPU; fails to open without one. */
  CUDA,
  /** Java reference implementations over host memory: same results, no GPU, not tuned. */
  HOST;

  /** Parses a configuration value, case-insensitively, naming the allowed values when it is not one. */
  public static BackendKind parse(String value) {
    try {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw new IllegalArgumentException("backend must be one of auto, cuda, host, not '" + value + "'");
    }
  }
}
