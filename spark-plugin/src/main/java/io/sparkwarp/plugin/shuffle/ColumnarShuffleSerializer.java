package io.sparkwarp.plugin.shuffle;

import static io.sparkwarp.plugin.Throwables.sneaky;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.apache.spark.serializer.DeserializationStream;
import org.apache.spark.serializer.SerializationStream;
import org.apache.spark.serializer.Serializer;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.serializer.SerializerInstance;
import scala.reflect.ClassTag;

/**
 * The serializer of the columnar shuffle's records, whose values are slices (byte arrays from {@link ColumnarSlices}):
 * each is written as its length and its bytes; keys (partition ids, which Spark's shuffle keeps itself) are not
 * written at all, as with Spark's UnsafeRowSerializer. Records are self-contained, so Spark may move serialized
 * records around (its serialized sort shuffle for many partitions).
 *
 * <p>A slice is read back wrapped in a one-field row ({@link #slice(Object)} unwraps it): the reduce side reuses
 * Spark's ShuffledRowRDD, which reads every kind of adaptive partition spec and casts the values it reads to rows.
 */
public final class ColumnarShuffleSerializer extends Serializer implements Serializable {
  @Override
  public SerializerInstance newInstance() {
    return new Instance();
  }

  @Override
  public boolean supportsRelocationOfSerializedObjects() {
    return true;
  }

  private static final class Instance extends SerializerInstance {
    @Override
    public SerializationStream serializeStream(OutputStream out) {
      return new Writer(new DataOutputStream(out));
    }

    @Override
    public DeserializationStream deserializeStream(InputStream in) {
      return new Reader(new DataInputStream(in));
    }

    @Override
    public <T> ByteBuffer serialize(T t, ClassTag<T> tag) {
      throw new UnsupportedOperationException("the columnar shuffle serializes streams only");
    }

    @Override
    public <T> T deserialize(ByteBuffer bytes, ClassTag<T> tag) {
      throw new UnsupportedOperationException("the columnar shuffle serializes streams only");
    }

    @Override
    public <T> T deserialize(ByteBuffer bytes, ClassLoader loader, ClassTag<T> tag) {
      throw new UnsupportedOperationException("the columnar shuffle serializes streams only");
    }
  }

  private static final class Writer extends SerializationStream {
    private final DataOutputStream out;

    Writer(DataOutputStream out) {
      this.out = out;
    }

    @Override
    public <T> SerializationStream writeKey(T key, ClassTag<T> tag) {
      return this;  // the partition id: the shuffle file's layout already says it
    }

    @Override
    public <T> SerializationStream writeValue(T value, ClassTag<T> tag) {
      return writeObject(value, tag);
    }

    @Override
    public <T> SerializationStream writeObject(T value, ClassTag<T> tag) {
      byte[] slice = (byte[]) value;
      unchecked(() -> {
        out.writeInt(slice.length);
        out.write(slice);
      });
      return this;
    }

    @Override
    public void flush() {
      unchecked(out::flush);
    }

    @Override
    public void close() {
      unchecked(out::close);
    }
  }

  /**
   * Reads records back. Spark's key-value iterator reads a key, then a value, and ends at an EOFException from
   * the key: so the key read takes the slice's length (ending there at the end of the stream), the value read its
   * bytes.
   */
  private static final class Reader extends DeserializationStream {
    private final DataInputStream in;
    private int length = -1;

    Reader(DataInputStream in) {
      this.in = in;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T readKey(ClassTag<T> tag) {
      try {
        length = in.readInt();
      } catch (EOFException e) {
        throw sneaky(e);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      if (length < 0) throw new IllegalStateException("corrupt columnar shuffle record: length " + length);
      return null;
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> T readValue(ClassTag<T> tag) {
      if (length < 0) throw new IllegalStateException("columnar shuffle record read without its key");
      byte[] slice = new byte[length];
      length = -1;
      try {
        in.readFully(slice);
      } catch (IOException e) {
        throw new UncheckedIOException("truncated columnar shuffle record", e);
      }
      return (T) new GenericInternalRow(new Object[] {slice});
    }

    @Override
    public <T> T readObject(ClassTag<T> tag) {
      readKey(tag);
      return readValue(tag);
    }

    @Override
    public void close() {
      unchecked(in::close);
    }
  }

  /** An I/O step inside Spark's stream interfaces, whose Scala signatures declare no checked exceptions. */
  private interface IoStep {
    void run() throws IOException;
  }

  private static void unchecked(IoStep step) {
    try {
      step.run();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The slice of a value read back. */
  public static byte[] slice(Object value) {
    return (byte[]) ((GenericInternalRow) value).values()[0];
  }
}
