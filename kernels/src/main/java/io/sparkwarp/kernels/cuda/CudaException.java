package io.sparkwarp.kernels.cuda;

import jcuda.driver.CUresult;

/** A CUDA driver call failed; the message names the call, the device and the error. */
public final class CudaException extends RuntimeException {
  private final int code;

  public CudaException(String call, String device, int code) {
    super(call + " failed on " + device + ": " + CUresult.stringFor(code) + " (" + code + ")");
    this.code = code;
  }

  /** The CUresult code. */
  public int code() {
    return code;
  }
}
