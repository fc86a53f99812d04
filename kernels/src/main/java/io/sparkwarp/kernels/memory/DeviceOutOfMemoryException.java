package io.sparkwarp.kernels.memory;

/** A device allocation did not fit: under the configured limit, or on the device itself. */
public final class DeviceOutOfMemoryException extends RuntimeException {
  public DeviceOutOfMemoryException(String message) {
    super(message);
  }

  public DeviceOutOfMemoryException(String message, Throwable cause) {
    super(message, cause);
  }
}
