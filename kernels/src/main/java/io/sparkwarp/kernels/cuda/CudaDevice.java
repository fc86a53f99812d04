package io.sparkwarp.kernels.cuda;

import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR;
import static jcuda.driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import jcuda.driver.CUdevice;
import jcuda.driver.JCudaDriver;

/**
 * What a GPU is: found by {@link #list()}.
 *
 * @param ordinal CUDA device ordinal
 * @param multiprocessors SM count, which sizes grids
 */
public record CudaDevice(int ordinal, String name, int major, int minor, int multiprocessors, long totalMemory) {
  /** Oldest architecture the fatbin carries code for (Ampere). */
  public static final int MIN_MAJOR = 8;

  /** Every visible device. Calls {@link Cuda#init()}. */
  public static List<CudaDevice> list() {
    Cuda.init();
    int[] count = new int[1];
    Cuda.check(JCudaDriver.cuDeviceGetCount(count), "cuDeviceGetCount", "this machine");
    List<CudaDevice> devices = new ArrayList<>();
    for (int i = 0; i < count[0]; i++) devices.add(query(i));
    return devices;
  }

  /** Properties of device {@code ordinal}. */
  public static CudaDevice query(int ordinal) {
    Cuda.init();
    String where = "device " + ordinal;
    CUdevice device = new CUdevice();
    Cuda.check(JCudaDriver.cuDeviceGet(device, ordinal), "cuDeviceGet", where);
    byte[] name = new byte[256];
    Cuda.check(JCudaDriver.cuDeviceGetName(name, name.length, device), "cuDeviceGetName", where);
    int end = 0;
    while (end < name.length && name[end] != 0) end++;
    long[] memory = new long[1];
    Cuda.check(JCudaDriver.cuDeviceTotalMem(memory, device), "cuDeviceTotalMem", where);
    return new CudaDevice(ordinal, new String(name, 0, end, StandardCharsets.UTF_8),
        attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, where),
        attribute(device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, where),
        attribute(device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, where), memory[0]);
  }

  private static int attribute(CUdevice device, int attribute, String where) {
    int[] value = new int[1];
    Cuda.check(JCudaDriver.cuDeviceGetAttribute(value, attribute, device), "cuDeviceGetAttribute", where);
    return value[0];
  }

  /** Whether the kernels in the jar can run on it. */
  public boolean supported() {
    return major >= MIN_MAJOR;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "cuda:%d %s (sm_%d%d, %d SMs, %.1f GiB)", ordinal, name, major, minor,
        multiprocessors, totalMemory / (double) (1L << 30));
  }
}
