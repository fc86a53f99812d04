package io.sparkwarp.kernels.cuda;

import io.sparkwarp.kernels.memory.DeviceBuffer;
import java.util.ArrayList;
import java.util.List;
import jcuda.Pointer;

/**
 * A kernel's parameters in declaration order, typed so a Java call site reads like the CUDA signature:
 * {@code new KernelArgs().pointer(src).i64(n)} for {@code (const T* src, int64_t n)}.
 */
public final class KernelArgs {
  private final List<Pointer> values = new ArrayList<>();

  /** A device pointer to {@code buffer}'s first byte. */
  public KernelArgs pointer(DeviceBuffer buffer) {
    return address(buffer.address());
  }

  /** A device pointer to byte {@code offset} of {@code buffer}. */
  public KernelArgs pointer(DeviceBuffer buffer, long offset) {
    buffer.checkRange(offset, 0);
    return address(buffer.address() + offset);
  }

  /** A raw device address. */
  public KernelArgs address(long address) {
    values.add(Pointer.to(new long[] {address}));
    return this;
  }

  public KernelArgs i32(int value) {
    values.add(Pointer.to(new int[] {value}));
    return this;
  }

  public KernelArgs i64(long value) {
    values.add(Pointer.to(new long[] {value}));
    return this;
  }

  public KernelArgs f64(double value) {
    values.add(Pointer.to(new double[] {value}));
    return this;
  }

  /** A struct passed by value: its bytes, laid out as the kernel declares it (little-endian, C alignment). */
  public KernelArgs struct(byte[] value) {
    values.add(Pointer.to(value));
    return this;
  }

  Pointer toKernelParams() {
    return Pointer.to(values.toArray(new Pointer[0]));
  }
}
