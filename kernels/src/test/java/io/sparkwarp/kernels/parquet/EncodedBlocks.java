package io.sparkwarp.kernels.parquet;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.memory.DeviceBuffer;

/** Compressed blocks without pages: the input, its blocks and the size of what they decompress to. */
public record EncodedBlocks(byte[] input, long outputBytes, CompressedBlocks blocks) {
  /** Decompresses on {@code backend}; returns the output bytes. */
  public byte[] decompress(Backend backend, DeviceStream stream) {
    try (DeviceBuffer in = ParquetTesting.upload(backend, input, stream);
        DeviceBuffer out = backend.allocate(outputBytes, stream)) {
      backend.parquet().decompress(in, out, blocks, stream);
      return ParquetTesting.download(backend, out, stream);
    }
  }
}
