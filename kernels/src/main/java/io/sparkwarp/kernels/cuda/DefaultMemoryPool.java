package io.sparkwarp.kernels.cuda;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import jcuda.driver.CUmemPool_attribute;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Configures a device's default memory pool through sparkwarp's JNI library ({@code src/main/native}): JCuda binds no
 * cuMemPoolSetAttribute, and its cuMemPoolCreate passes a wrong JNI field ID (which corrupts the Java heap), so
 * sparkwarp allocates from the default pool and sets it up here. Without the library the pool still works, but
 * returns memory to the OS at every synchronize, making later allocations slower: a warning says so once.
 */
final class DefaultMemoryPool {
  private static final Logger LOG = LoggerFactory.getLogger(DefaultMemoryPool.class);
  private static final String LIBRARY = "/io/sparkwarp/kernels/libsparkwarp-jni-linux-x86_64.so";
  private static final String UNAVAILABLE = loadLibrary();

  private DefaultMemoryPool() {}

  private static String loadLibrary() {
    try (InputStream in = DefaultMemoryPool.class.getResourceAsStream(LIBRARY)) {
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

  /** Keeps up to {@code bytes} of freed memory in the device's default pool across synchronisations. */
  static void keepFreed(CudaContext context, long bytes) {
    if (UNAVAILABLE != null) {
      LOG.warn("sparkwarp cannot set the device memory pool's release threshold ({}); device allocations after each "
          + "synchronize will map memory again", UNAVAILABLE);
      return;
    }
    check(context, setAttribute64(context.device().ordinal(), CUmemPool_attribute.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
        bytes), "cuMemPoolSetAttribute(CU_MEMPOOL_ATTR_RELEASE_THRESHOLD)");
  }

  /** Gives the pool's unused memory back to the OS (when the backend closes). */
  static void trim(CudaContext context) {
    if (UNAVAILABLE == null) check(context, trimTo(context.device().ordinal(), 0), "cuMemPoolTrimTo");
  }

  /**
   * Lets {@code peer}'s device read and write the allocations of {@code owner}'s default pool, present and future
   * (peer copies of stream-ordered allocations need it; the context's peer access does not cover them).
   */
  static void grantAccess(CudaContext owner, CudaContext peer) {
    if (UNAVAILABLE != null) {
      LOG.warn("sparkwarp cannot let {} reach the memory pool of {} ({}); copies between them go through host memory",
          peer.where(), owner.where(), UNAVAILABLE);
      return;
    }
    check(owner, setAccess(owner.device().ordinal(), peer.device().ordinal()), "cuMemPoolSetAccess(" + peer.where()
        + ")");
  }

  private static void check(CudaContext context, int result, String call) {
    if (result < 0) {
      LOG.warn("sparkwarp cannot reach {} in libcuda.so.1 (code {})", call, result);
    } else {
      context.check(result, call);
    }
  }

  private static native int setAttribute64(int ordinal, int attribute, long value);

  private static native int trimTo(int ordinal, long keep);

  private static native int setAccess(int ordinal, int peerOrdinal);
}
