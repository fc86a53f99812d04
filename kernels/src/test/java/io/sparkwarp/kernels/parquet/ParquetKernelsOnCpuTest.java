package io.sparkwarp.kernels.parquet;

import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.host.HostBackend;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.testing.CpuKernelHarness;
import io.sparkwarp.kernels.testing.RandomVectors;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.memory.util.MemoryUtil;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xerial.snappy.Snappy;

/**
 * The Parquet kernels' own code, run on the CPU so that CI checks it: {@code parquet_on_cpu.cpp} compiles
 * {@code parquet.cu} against the warp emulation and runs it over blocks of every codec, columns of every type in
 * random page shapes, and the same with flipped bytes (and in each encoding that is not for every type), comparing
 * every buffer with the host backend's (or that both found the input corrupt). Checks logic, bounds (AddressSanitizer) and warp convergence; not speed nor the GPU memory model.
 */
class ParquetKernelsOnCpuTest {
  @TempDir
  Path work;

  private final long seed = new Random().nextLong();
  private final Random rnd = new Random(seed);

  @Test
  void kernelsAgreeWithTheHostOnTheCpu() throws Exception {
    CpuKernelHarness harness = CpuKernelHarness.compile("parquet_on_cpu", work);
    try (HostBackend host = new HostBackend(BackendOptions.defaults()); DeviceStream stream = host.newStream();
        RootAllocator allocator = new RootAllocator()) {
      List<Path> cases = new ArrayList<>();  // written one by one, then run at once
      int index = 0;
      for (int kind = 0; kind < LzInputs.KINDS; kind++) {  // blocks alone, intact and damaged
        for (boolean corrupt : new boolean[] {false, true}) {
          Path dir = work.resolve("case" + index++);
          writeBlocks(host, stream, compressedBlocks(kind, corrupt), dir);
          cases.add(dir);
        }
      }
      // Snappy blocks of several 64 KiB fragments (the device's fragment split): snappy-java's, and streams whose
      // copies read across fragments, intact and damaged
      for (boolean corrupt : new boolean[] {false, true}) {
        Path dir = work.resolve("case" + index++);
        writeBlocks(host, stream, fragmentedSnappyBlocks(corrupt), dir);
        cases.add(dir);
      }
      // a column of every type, intact and damaged (each page's codec at random: the emulated LZ4 warps are what
      // this test spends its time on, so the blocks above cover the codecs and these one column each)
      for (DeviceType type : RandomVectors.allTypes()) {
        for (boolean corrupt : new boolean[] {false, true}) {
          try (FieldVector values = ParquetTesting.values(type, rnd.nextInt(3000), rnd.nextBoolean(), rnd, allocator)) {
            EncodedColumn c = EncodedColumn.encode(values, EncodedColumn.specFor(type, rnd), rnd);
            if (corrupt) Corruption.flip(c.input, rnd);
            Path dir = work.resolve("case" + index++);
            write(host, stream, c, dir);
            cases.add(dir);
          }
        }
      }
      // DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY and BYTE_STREAM_SPLIT in every type they store, intact and damaged
      for (ParquetTesting.Encoded e : ParquetTesting.ENCODED) {
        for (boolean corrupt : new boolean[] {false, true}) {
          try (FieldVector values = ParquetTesting.valuesFor(e.spec(), rnd.nextInt(1500), rnd.nextBoolean(), rnd,
              allocator)) {
            EncodedColumn c = EncodedColumn.encode(values, e.spec(), rnd, e.kind());
            if (corrupt) Corruption.flip(c.input, rnd);
            Path dir = work.resolve("case" + index++);
            write(host, stream, c, dir);
            cases.add(dir);
          }
        }
      }
      // the stored forms that convert: unsigned 32-bit integers, milliseconds (small values, and any: overflow)
      for (ColumnSpec spec : ParquetTesting.CONVERTING) {
        for (boolean small : new boolean[] {true, false}) {
          try (FieldVector values = ParquetTesting.valuesFor(spec, rnd.nextInt(3000), rnd.nextBoolean(), rnd,
              allocator)) {
            if (small) ParquetTesting.shrinkMillis(spec, values);
            Path dir = work.resolve("case" + index++);
            write(host, stream, EncodedColumn.encode(values, spec, rnd), dir);
            cases.add(dir);
          }
        }
      }
      harness.runAll(cases, seed);
    }
  }

  /** A few blocks of LzInputs of one kind, each in a codec of its own (TestCodecs). */
  private EncodedBlocks compressedBlocks(int kind, boolean corrupt) {
    java.io.ByteArrayOutputStream in = new java.io.ByteArrayOutputStream();
    CompressedBlocks blocks = new CompressedBlocks();
    long out = 0;
    for (int b = 0; b < 6; b++) {
      byte[] raw = LzInputs.of(kind, rnd.nextInt(20_000), rnd);
      CompressedBlocks.Codec codec = CompressedBlocks.Codec.values()[rnd.nextInt(CompressedBlocks.Codec.values().length)];
      byte[] packed = TestCodecs.compress(codec, raw, rnd);
      blocks.add(in.size(), packed.length, out, raw.length, codec);
      in.writeBytes(packed);
      out += raw.length;
    }
    byte[] input = in.toByteArray();
    if (corrupt) Corruption.flip(input, rnd);
    return new EncodedBlocks(input, out, blocks);
  }

  /** Snappy blocks of 2 or 3 fragments: one from snappy-java, one across fragments (SnappyStreams). */
  private EncodedBlocks fragmentedSnappyBlocks(boolean corrupt) throws IOException {
    java.io.ByteArrayOutputStream in = new java.io.ByteArrayOutputStream();
    CompressedBlocks blocks = new CompressedBlocks();
    byte[] raw = LzInputs.of(rnd.nextInt(LzInputs.KINDS), 66_000 + rnd.nextInt(10_000), rnd);
    byte[][] across = SnappyStreams.acrossFragments(2, rnd);
    byte[] packed = Snappy.compress(raw);
    blocks.add(0, packed.length, 0, raw.length, CompressedBlocks.Codec.SNAPPY);
    blocks.add(packed.length, across[1].length, raw.length, across[0].length, CompressedBlocks.Codec.SNAPPY);
    in.writeBytes(packed);
    in.writeBytes(across[1]);
    byte[] input = in.toByteArray();
    if (corrupt) Corruption.flip(input, rnd);
    return new EncodedBlocks(input, raw.length + across[0].length, blocks);
  }

  /** A case of blocks and no pages: only the decompression is compared. */
  private static void writeBlocks(HostBackend host, DeviceStream stream, EncodedBlocks c, Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.write(dir.resolve("input.bin"), c.input());
    Files.write(dir.resolve("blocks.bin"), le(c.blocks().words()));
    Files.write(dir.resolve("fragments.bin"), fragments(c.blocks()));
    Files.write(dir.resolve("table.bin"), new byte[0]);
    boolean raised = false;
    byte[] pages = new byte[0];
    try {
      pages = c.decompress(host, stream);
    } catch (ParquetDataException e) {
      raised = true;
    }
    Files.write(dir.resolve("pages.bin"), pages);
    Files.write(dir.resolve("validity.bin"), new byte[0]);
    Files.write(dir.resolve("data.bin"), new byte[0]);
    Files.writeString(dir.resolve("case.txt"), c.outputBytes() + " 1 0 4 0 0 " + (raised ? 1 : 0) + "\n");
  }

  /** The case files parquet_on_cpu.cpp reads, with the host backend's results. */
  private static void write(HostBackend host, DeviceStream stream, EncodedColumn c, Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.write(dir.resolve("input.bin"), c.input);
    Files.write(dir.resolve("blocks.bin"), le(c.blocks.words()));
    Files.write(dir.resolve("fragments.bin"), fragments(c.blocks));
    Files.write(dir.resolve("table.bin"), le(c.table.words()));
    boolean raised = false;
    byte[] pages = new byte[0];
    try (DeviceBuffer in = ParquetTesting.upload(host, c.input, stream);
        DeviceBuffer out = host.allocate(c.pages.length, stream)) {
      host.parquet().decompress(in, out, c.blocks, stream);
      pages = ParquetTesting.download(host, out, stream);
      try (DeviceColumn column = host.parquet().decode(out, c.table, c.spec, stream)) {
        Files.write(dir.resolve("validity.bin"), bytes(column.validity(), (column.rowCount() + 7) / 8));
        if (column.type().isVariableWidth()) {
          Files.write(dir.resolve("offsets.bin"), bytes(column.offsets(), 4L * (column.rowCount() + 1)));
        }
        Files.write(dir.resolve("data.bin"), bytes(column.data(), column.dataBytes()));
      }
    } catch (ParquetDataException e) {
      raised = true;
    }
    Files.write(dir.resolve("pages.bin"), pages);
    DeviceType type = c.spec.output();
    int outWidth = type.isVariableWidth() ? -1 : type.isBitPacked() ? 0 : type.width();
    Files.writeString(dir.resolve("case.txt"), c.pages.length + " " + c.spec.physical().ordinal() + " "
        + c.spec.typeLength() + " " + outWidth + " " + c.table.rowCount() + " " + c.table.dictionaryEntries() + " "
        + (raised ? 1 : 0) + "\n");
  }

  /** The fragment slots of every Snappy block that has several: the device splits them when its grid has room. */
  private static byte[] fragments(CompressedBlocks blocks) {
    long[] first = SnappyFragments.firstSlots(blocks, Long.MAX_VALUE);
    return first == null ? new byte[0] : le(first);
  }

  private static byte[] le(long[] words) {
    ByteBuffer b = ByteBuffer.allocate(8 * words.length).order(ByteOrder.LITTLE_ENDIAN);
    for (long w : words) b.putLong(w);
    return b.array();
  }

  /** The host backend's "device" memory is host memory. */
  private static byte[] bytes(DeviceBuffer buffer, long n) {
    byte[] out = new byte[Math.toIntExact(n)];
    MemoryUtil.copyFromMemory(buffer.address(), out, 0, n);
    return out;
  }
}
