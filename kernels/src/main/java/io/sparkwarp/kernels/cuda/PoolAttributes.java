package io.sparkwarp.kernels.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import jcuda.driver.CUmemPool_attribute;
import jcuda.driver.CUmemoryPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sets memory-pool attributes through sparkwarp's JNI library ({@code src/main/native}), since JCuda does not bind
 * cuMemPoolSetAttribute. Without the library the pool still works, but returns memory to the OS at every
 * synchronize, making later allocations slower: a warning says so once.
 */
final class PoolAttributes {
  private static final Logger LOG = LoggerFactory.getLogger(PoolAttributes.class);
  private static final String LIBRARY = "/io/sparkwarp/kernels/libsparkwarp-jni-linux-x86_64.so";
  private static final String UNAVAILABLE = loadLibrary();

  private PoolAttributes() {}

  /** A memory pool whose native handle can be read. */
  static final class Pool extends CUmemoryPool {
    long handle() {
      return getNativePointer();
    }
  }

  private static String loadLibrary() {
    try (InputStream in = PoolAttributes.class.getResourceAsStream(LIBRARY)) {
      if (in == null) return "the jar carries no " + LIBRARY;
      Path file = Files.createTempFile("sparkwarp-jni", ".so");
      file.toFile().deleteOnExit();
      Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
      System.load(file.toString());
      return null;
    } catch (IOException | UnsatisfiedLinkError e) {
      return e.toString();
    }
  }

  /** Keeps up to {@code bytes} of freed memory in the pool across synchronisations. */
  static void setReleaseThreshold(Pool pool, long bytes, CudaContext context) {
    if (UNAVAILABLE != null) {
      LOG.warn("sparkwarp cannot set the device memory pool's release threshold ({}); device allocations after each "
          + "synchronize will map memory again", UNAVAILABLE);
      return;
    }
    int result = setAttribute64(pool.handle(), CUmemPool_attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, bytes);
    if (result < 0) {
      LOG.warn("sparkwarp cannot reach cuMemPoolSetAttribute in libcuda.so.1 (code {})", result);
      return;
    }
    context.check(result, "cuMemPoolSetAttribute(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)");
  }

  private static native int setAttribute64(long pool, int attribute, long value);
}
