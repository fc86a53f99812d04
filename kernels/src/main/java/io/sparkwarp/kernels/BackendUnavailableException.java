package io.sparkwarp.kernels;

/** A backend cannot start on this machine; the message says why and what to do. */
public final class BackendUnavailableException extends RuntimeException {
  public BackendUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }

  public BackendUnavailableException(String message) {
    super(message);
  }
}
