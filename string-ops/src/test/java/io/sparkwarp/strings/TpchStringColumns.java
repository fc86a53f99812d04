package io.sparkwarp.strings;

import io.sparkwarp.kernels.Backend;
import io.sparkwarp.kernels.DeviceStream;
import io.sparkwarp.kernels.batch.ArrowUpload;
import io.sparkwarp.kernels.batch.DeviceColumn;
import io.trino.tpch.LineItemGenerator;
import io.trino.tpch.OrderGenerator;
import io.trino.tpch.PartGenerator;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.apache.arrow.vector.VarCharVector;

/**
 * TPC-H string columns (l_comment, o_comment, p_name) generated in parallel with io.trino.tpch, kept on the host
 * for reference answers and uploaded once as all-valid device columns.
 */
final class TpchStringColumns {
  /** One generated column: its strings' bytes back to back, and rows + 1 offsets. */
  record HostStrings(String name, byte[] bytes, int[] offsets) {
    int rows() {
      return offsets.length - 1;
    }

    long byteCount() {
      return offsets[rows()];
    }

    /** Rows matching {@code matcher}, counted in parallel on the host: the reference answer. */
    long count(io.sparkwarp.kernels.strings.StringMatcher matcher) {
      return IntStream.range(0, rows()).parallel()
          .filter(r -> matcher.matches(bytes, offsets[r], offsets[r + 1] - offsets[r])).count();
    }
  }

  private TpchStringColumns() {}

  static HostStrings lineitemComments(double scale) {
    return generate("l_comment", part -> new LineItemGenerator(scale, part, parts()).iterator(),
        l -> l.getComment());
  }

  static HostStrings orderComments(double scale) {
    return generate("o_comment", part -> new OrderGenerator(scale, part, parts()).iterator(), o -> o.getComment());
  }

  static HostStrings partNames(double scale) {
    return generate("p_name", part -> new PartGenerator(scale, part, parts()).iterator(), p -> p.getName());
  }

  private static int parts() {
    return 4 * Runtime.getRuntime().availableProcessors();
  }

  /** The generator's parts run in parallel, each into its own buffer; then they are joined in part order. */
  private static <T> HostStrings generate(String name, Function<Integer, Iterator<T>> part, Function<T, String> value) {
    int parts = parts();
    List<ByteArrayOutputStream> bytes = new ArrayList<>();
    List<List<Integer>> lengths = new ArrayList<>();
    for (int p = 0; p < parts; p++) {
      bytes.add(new ByteArrayOutputStream());
      lengths.add(new ArrayList<>());
    }
    IntStream.range(0, parts).parallel().forEach(p -> {
      Iterator<T> rows = part.apply(p + 1);  // parts are numbered from 1
      while (rows.hasNext()) {
        byte[] s = value.apply(rows.next()).getBytes(StandardCharsets.UTF_8);
        bytes.get(p).writeBytes(s);
        lengths.get(p).add(s.length);
      }
    });
    int rows = lengths.stream().mapToInt(List::size).sum();
    long total = bytes.stream().mapToLong(ByteArrayOutputStream::size).sum();
    if (total > Integer.MAX_VALUE - 8) throw new IllegalArgumentException(name + " holds more than 2 GB of strings");
    int[] offsets = new int[rows + 1];
    byte[] all = new byte[(int) total];
    int r = 0;
    for (int p = 0; p < parts; p++) {
      System.arraycopy(bytes.get(p).toByteArray(), 0, all, offsets[r], bytes.get(p).size());
      for (int len : lengths.get(p)) {
        offsets[r + 1] = offsets[r] + len;
        r++;
      }
      bytes.set(p, null);  // one part's copy at a time
    }
    return new HostStrings(name, all, offsets);
  }

  /** The column on the device, all valid: an Arrow vector in transfer memory, uploaded as any batch is. */
  static DeviceColumn upload(Backend backend, HostStrings s, DeviceStream stream) {
    try (VarCharVector v = new VarCharVector(s.name(), backend.transferMemory().arrowAllocator())) {
      v.allocateNew(s.byteCount(), s.rows());
      for (int r = 0; r < s.rows(); r++) v.set(r, s.bytes(), s.offsets()[r], s.offsets()[r + 1] - s.offsets()[r]);
      v.setValueCount(s.rows());
      DeviceColumn c = ArrowUpload.upload(backend, v, stream);
      stream.synchronize();  // the vector is freed next
      return c;
    }
  }
}
