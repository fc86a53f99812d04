/* The one driver call sparkwarp needs that JCuda 12.6 does not bind: cuMemPoolSetAttribute. Without it a memory
 * pool keeps a release threshold of 0 and hands its memory back to the OS at every synchronize, so the next
 * allocation maps pages again. The driver is looked up at run time (dlopen), so this library links no CUDA. */
#include <dlfcn.h>
#include <jni.h>
#include <stdint.h>

/* Bind the oldest dlopen/dlsym versions, so a library built on a new glibc loads on older distributions too. */
#if defined(__x86_64__)
__asm__(".symver dlopen,dlopen@GLIBC_2.2.5");
__asm__(".symver dlsym,dlsym@GLIBC_2.2.5");
#endif

typedef int (*pool_set_attribute_fn)(void *pool, int attribute, void *value);

JNIEXPORT jint JNICALL Java_io_sparkwarp_kernels_cuda_PoolAttributes_setAttribute64(JNIEnv *env, jclass cls,
                                                                                    jlong pool, jint attribute,
                                                                                    jlong value) {
  static pool_set_attribute_fn set_attribute = NULL;
  (void)env;
  (void)cls;
  if (set_attribute == NULL) {
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (driver == NULL) return -1;
    set_attribute = (pool_set_attribute_fn)dlsym(driver, "cuMemPoolSetAttribute");
    if (set_attribute == NULL) return -2;
  }
  uint64_t v = (uint64_t)value;
  return set_attribute((void *)(intptr_t)pool, attribute, &v);
}
