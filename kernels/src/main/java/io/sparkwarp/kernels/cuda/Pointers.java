package io.sparkwarp.kernels.cuda;

import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;

/**
 * Raw addresses to and from JCuda's pointer objects. JCuda hides the address a pointer holds; these subclasses
 * construct pointers at a given address and read the address the driver wrote into them.
 */
final class Pointers {
  private Pointers() {}

  /** A host pointer at {@code address}. */
  static Pointer host(long address) {
    return new HostAddress(address);
  }

  /** A device pointer at {@code address}. */
  static CUdeviceptr device(long address) {
    return new DeviceAddress(address);
  }

  /** A pointer the driver fills in (cuMemHostAlloc), whose address is then read back. */
  static final class HostAddress extends Pointer {
    HostAddress(long address) {
      super(address);
    }

    long address() {
      return getNativePointer() + getByteOffset();
    }
  }

  /** A device pointer the driver fills in (allocations), or one made from an address as a byte offset from 0. */
  static final class DeviceAddress extends CUdeviceptr {
    private static final CUdeviceptr NULL = new CUdeviceptr();

    DeviceAddress() {}

    DeviceAddress(long address) {
      super(NULL, address);
    }

    long address() {
      return getNativePointer() + getByteOffset();
    }
  }
}
