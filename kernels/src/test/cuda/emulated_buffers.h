// Device buffers as the emulated kernels see them, and the case files the Java tests write: shared by the CPU
// harnesses. A buffer is allocated as DeviceMemory makes them: 256-byte aligned, padded to whole 8-byte words with
// garbage, nothing past that (AddressSanitizer catches reads beyond).
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>

namespace {

int failures = 0;

void fail(const std::string& what) {
  failures++;
  fprintf(stderr, "FAIL: %s\n", what.c_str());
}

// A device buffer of `bytes` bytes.
struct Buffer {
  uint8_t* data = nullptr;
  size_t bytes = 0;

  explicit Buffer(size_t n) : bytes(n) {
    const size_t padded = n == 0 ? 8 : (n + 7) / 8 * 8;
    void* p = nullptr;
    if (posix_memalign(&p, 256, padded) != 0) abort();
    data = static_cast<uint8_t*>(p);
    memset(data, 0xA5, padded);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { free(data); }

  template <typename T>
  T* as() const {
    return reinterpret_cast<T*>(data);
  }
};

std::unique_ptr<Buffer> read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    fprintf(stderr, "cannot read %s\n", path.c_str());
    exit(2);
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto b = std::make_unique<Buffer>(bytes.size());
  memcpy(b->data, bytes.data(), bytes.size());
  return b;
}

}  // namespace
