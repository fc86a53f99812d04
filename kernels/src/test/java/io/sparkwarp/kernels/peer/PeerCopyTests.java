package io.sparkwarp.kernels.peer;

import static io.sparkwarp.kernels.testing.VectorAssertions.assertVectorEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.kernels.BackendOptions;
import io.sparkwarp.kernels.Backends;
import io.sparkwarp.kernels.Closeables;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowDownload;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.BatchConcatenator;
import io.sparkwarp.kernels.batch.BatchRange;
import io.sparkwarp.kernels.batch.BatchSlicer;
import io.sparkwarp.kernels.batch.DeviceBatch;
import io.sparkwarp.kernels.batch.DeviceType;
import io.sparkwarp.kernels.batch.PeerBatchCopy;
import io.sparkwarp.kernels.memory.DeviceBuffer;
import io.sparkwarp.kernels.testing.RandomVectors;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Peer copies between two devices of one kind: byte ranges both ways, whole batches of every type with nulls, and the
 * argument checks; kernels of one device reading the other's batches. Subclasses pick the kind and say whether two
 * devices are there.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PeerCopyTests {
  private Backend first;
  private Backend second;
  private DeviceStream firstStream;
  private DeviceStream secondStream;
  private BufferAllocator allocator;

  protected abstract BackendKind kind();

  /** Called before anything opens: skips the class (an assumption) where two devices are not there. */
  protected abstract void assumeTwoDevices();

  @BeforeAll
  void open() {
    assumeTwoDevices();
    first = Backends.open(kind(), BackendOptions.defaults().withDevice(0));
    second = Backends.open(kind(), BackendOptions.defaults().withDevice(1));
    firstStream = first.newStream();
    secondStream = second.newStream();
    allocator = new RootAllocator();
  }

  @AfterEach
  void nothingLeaked() {
    assertEquals(List.of(), first.deviceMemory().liveBuffers(), "device memory left on the first device");
    assertEquals(List.of(), second.deviceMemory().liveBuffers(), "device memory left on the second device");
  }

  @AfterAll
  void close() {
    if (first == null) return;
    firstStream.close();
    secondStream.close();
    allocator.close();
    first.close();
    second.close();
  }

  @Test
  void byteRangesCopyBothWays() {
    int bytes = 1 << 20;
    assertRangeCopied(first, firstStream, second, secondStream, bytes);
    assertRangeCopied(second, secondStream, first, firstStream, bytes);
  }

  /** Fills a source buffer with a pattern, copies an unaligned range into the middle of a zeroed peer buffer. */
  private void assertRangeCopied(Backend from, DeviceStream fromStream, Backend to, DeviceStream toStream, int bytes) {
    try (ArrowBuf host = allocator.buffer(bytes);
        DeviceBuffer src = from.allocate(bytes, fromStream);
        DeviceBuffer dst = to.allocate(bytes, toStream)) {
      for (int i = 0; i < bytes; i++) host.setByte(i, i * 31 + 7);
      from.copyHostToDevice(host.memoryAddress(), src, 0, bytes, fromStream);
      to.fill(dst, 0, bytes, (byte) 0, toStream);
      toStream.synchronize();
      from.copyToPeer(src, 3, to, dst, 5, bytes - 11, fromStream);
      fromStream.synchronize();
      host.setZero(0, bytes);
      to.copyDeviceToHost(dst, 0, host.memoryAddress(), bytes, toStream);
      toStream.synchronize();
      for (int i = 0; i < bytes; i++) {
        int expected = i < 5 || i >= bytes - 6 ? 0 : (byte) ((i - 2) * 31 + 7);
        if (host.getByte(i) != expected) assertEquals(expected, host.getByte(i), "byte " + i + " of the peer buffer");
      }
    }
  }

  @Test
  void batchesOfEveryTypeCopyWhole() {
    Random rnd = new Random(16);
    for (int rows : new int[] {0, 1, 33, 5000}) {
      List<FieldVector> vectors = new ArrayList<>();
      List<String> names = new ArrayList<>();
      for (DeviceType type : RandomVectors.allTypes()) {
        vectors.add(RandomVectors.random(type, rows, 0.2, 40, rnd, allocator));
        names.add("c" + names.size());
      }
      try (DeviceBatch source = ArrowUpload.upload(first, vectors, firstStream);
          DeviceBatch copy = PeerBatchCopy.copy(first, source, firstStream, second, secondStream);
          ArrowDownload download = ArrowDownload.begin(second, copy, names, allocator, secondStream)) {
        List<FieldVector> back = download.complete();
        try {
          for (int c = 0; c < vectors.size(); c++) {
            assertVectorEquals(vectors.get(c), back.get(c), rows + " rows, column " + names.get(c));
          }
        } finally {
          Closeables.closeAll(back);
        }
      } finally {
        Closeables.closeAll(vectors);
      }
    }
  }

  @Test
  void buffersOfTheWrongDeviceOrRangeAreRefused() {
    try (DeviceBuffer a = first.allocate(64, firstStream);
        DeviceBuffer b = second.allocate(64, secondStream)) {
      IllegalArgumentException wrongDestination = assertThrows(IllegalArgumentException.class,
          () -> first.copyToPeer(a, 0, second, a, 0, 8, firstStream));
      assertEquals("the destination of a peer copy is not memory of " + second.description(),
          wrongDestination.getMessage());
      assertThrows(IllegalArgumentException.class, () -> first.copyToPeer(b, 0, second, b, 0, 8, firstStream));
      assertThrows(IndexOutOfBoundsException.class, () -> first.copyToPeer(a, 60, second, b, 0, 8, firstStream));
      assertThrows(IndexOutOfBoundsException.class, () -> first.copyToPeer(a, 0, second, b, 57, 8, firstStream));
      firstStream.synchronize();
      secondStream.synchronize();
    }
  }

  /**
   * Where the second device reads the first's memory, its kernels and copies concatenate row ranges of a batch that
   * stays on the first (as a reduce task reads shuffle output kept on another device), every type with nulls.
   */
  @Test
  void kernelsReadRangesOfThePeersBatches() {
    Assumptions.assumeTrue(second.readsPeerMemory(first), "the second device cannot read the first's memory");
    Random rnd = new Random(17);
    int rows = 3000;
    List<FieldVector> vectors = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (DeviceType type : RandomVectors.allTypes()) {
      vectors.add(RandomVectors.random(type, rows, 0.2, 40, rnd, allocator));
      names.add("c" + names.size());
    }
    try (DeviceBatch source = ArrowUpload.upload(first, vectors, firstStream)) {
      List<BatchRange> ranges = BatchSlicer.ranges(first, source, new int[] {1000, 7}, new int[] {2000, 993},
          firstStream);
      firstStream.synchronize();  // the source's work is done before the other device reads it
      try (DeviceBatch there = BatchConcatenator.concatRanges(second, ranges, secondStream);
          DeviceBatch expected = BatchConcatenator.concatRanges(first, ranges, firstStream);
          ArrowDownload read = ArrowDownload.begin(second, there, names, allocator, secondStream);
          ArrowDownload want = ArrowDownload.begin(first, expected, names, allocator, firstStream)) {
        List<FieldVector> got = read.complete();
        List<FieldVector> wanted = want.complete();
        try {
          for (int c = 0; c < vectors.size(); c++) {
            assertVectorEquals(wanted.get(c), got.get(c), "column " + names.get(c));
          }
        } finally {
          Closeables.closeAll(got);
          Closeables.closeAll(wanted);
        }
      }
    } finally {
      Closeables.closeAll(vectors);
    }
  }

  /** The benchmark prints this; here only that asking twice gives one answer, both ways. */
  @Test
  void directAccessIsStable() {
    boolean there = first.directPeerAccess(second);
    assertEquals(there, first.directPeerAccess(second));
    assertEquals(there, second.directPeerAccess(first));
  }
}
