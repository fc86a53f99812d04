package io.sparkwarp.kernels.batch;

/** A column type has no device layout; the message names it (and becomes a CPU-fallback reason upstream). */
public final class UnsupportedTypeException extends RuntimeException {
  public UnsupportedTypeException(String message) {
    super(message);
  }
}
