/* Driver calls sparkwarp makes itself rather than through JCuda: configuring a device's default memory pool (its
 * release threshold, trimming, and which peer devices may reach it).
 * JCuda 12.6 binds no cuMemPoolSetAttribute, and its cuMemPoolCreate passes a wrong JNI field ID (caught by
 * -Xcheck:jni; without it, a corrupted Java heap and a rare GC crash), so sparkwarp allocates from the default pool
 * (cuMemAllocAsync) and sets that pool up here. The driver is looked up at run time (dlopen): no CUDA is linked. */
#include <dlfcn.h>
#include <jni.h>
#include <stdint.h>

/* Bind the oldest dlopen/dlsym versions, so a library built on a new glibc loads on older distributions too. */
#if defined(__x86_64__)
__asm__(".symver dlopen,dlopen@GLIBC_2.2.5");
__asm__(".symver dlsym,dlsym@GLIBC_2.2.5");
#endif

typedef int (*device_get_fn)(int *device, int ordinal);
typedef int (*default_pool_fn)(void **pool, int device);
typedef int (*pool_set_attribute_fn)(void *pool, int attribute, void *value);
typedef int (*pool_trim_fn)(void *pool, size_t keep);

/* CUmemAccessDesc: a device location (CU_MEM_LOCATION_TYPE_DEVICE, ordinal) and its access flags. */
typedef struct {
  int location_type;
  int location_id;
  int flags;
} access_desc;
typedef int (*pool_set_access_fn)(void *pool, const access_desc *map, size_t count);
#define LOCATION_TYPE_DEVICE 1 /* CU_MEM_LOCATION_TYPE_DEVICE */
#define ACCESS_READWRITE 3     /* CU_MEM_ACCESS_FLAGS_PROT_READWRITE */

static void *driver_symbol(const char *name) {
  static void *driver = NULL;
  if (driver == NULL) driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
  return driver == NULL ? NULL : dlsym(driver, name);
}

/* The default memory pool of device `ordinal` into *pool; a negative result when the driver lacks a symbol. */
static int default_pool(int ordinal, void **pool) {
  device_get_fn device_get = (device_get_fn)driver_symbol("cuDeviceGet");
  default_pool_fn get_pool = (default_pool_fn)driver_symbol("cuDeviceGetDefaultMemPool");
  if (device_get == NULL || get_pool == NULL) return -1;
  int device;
  int result = device_get(&device, ordinal);
  return result != 0 ? result : get_pool(pool, device);
}

JNIEXPORT jint JNICALL Java_io_sparkwarp_kernels_cuda_DefaultMemoryPool_setAttribute64(JNIEnv *env, jclass cls,
                                                                                      jint ordinal, jint attribute,
                                                                                      jlong value) {
  (void)env;
  (void)cls;
  pool_set_attribute_fn set_attribute = (pool_set_attribute_fn)driver_symbol("cuMemPoolSetAttribute");
  if (set_attribute == NULL) return -2;
  void *pool;
  int result = default_pool(ordinal, &pool);
  if (result != 0) return result;
  uint64_t v = (uint64_t)value;
  return set_attribute(pool, attribute, &v);
}

JNIEXPORT jint JNICALL Java_io_sparkwarp_kernels_cuda_DefaultMemoryPool_trimTo(JNIEnv *env, jclass cls,
                                                                              jint ordinal, jlong keep) {
  (void)env;
  (void)cls;
  pool_trim_fn trim = (pool_trim_fn)driver_symbol("cuMemPoolTrimTo");
  if (trim == NULL) return -2;
  void *pool;
  int result = default_pool(ordinal, &pool);
  return result != 0 ? result : trim(pool, (size_t)keep);
}

/* Lets device `peer` read and write the allocations of device `ordinal`'s default pool (peer copies). */
JNIEXPORT jint JNICALL Java_io_sparkwarp_kernels_cuda_DefaultMemoryPool_setAccess(JNIEnv *env, jclass cls,
                                                                                 jint ordinal, jint peer) {
  (void)env;
  (void)cls;
  pool_set_access_fn set_access = (pool_set_access_fn)driver_symbol("cuMemPoolSetAccess");
  if (set_access == NULL) return -2;
  void *pool;
  int result = default_pool(ordinal, &pool);
  if (result != 0) return result;
  access_desc desc = {LOCATION_TYPE_DEVICE, peer, ACCESS_READWRITE};
  return set_access(pool, &desc, 1);
}
