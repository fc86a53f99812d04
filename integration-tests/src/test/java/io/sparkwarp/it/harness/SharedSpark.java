package io.sparkwarp.it.harness;

import io.sparkwarp.kernels.BackendKind;
import io.sparkwarp.plugin.runtime.GpuRuntime;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;

/**
 * The one local SparkSession of the test JVM, with the plugin loaded: a SparkContext's plugins are fixed at start,
 * so CPU and GPU runs differ only in the runtime setting {@code spark.warp.enabled}. The backend comes from the
 * system property {@value #BACKEND_PROPERTY} (default host; cuda on a GPU machine).
 */
public final class SharedSpark {
  public static final String BACKEND_PROPERTY = "sparkwarp.test.backend";
  public static final String PLUGIN = "io.sparkwarp.WarpPlugin";

  private static SparkSession session;
  private static Path scratch;

  private SharedSpark() {}

  public static synchronized SparkSession get() {
    if (session == null) {
      SparkSession.Builder builder = SparkSession.builder()
          .master("local[2]")
          .appName("sparkwarp integration tests")
          .config("spark.warp.backend", System.getProperty(BACKEND_PROPERTY, "host"))
          .config("spark.ui.enabled", "false")
          .config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.driver.host", "localhost")
          .config("spark.sql.shuffle.partitions", "4")
          .config("spark.sql.warehouse.dir", scratchDir().resolve("warehouse").toString())
          .config("spark.sql.session.timeZone", "UTC")
          // dates and timestamps as LocalDate and Instant: what the generators make, free of the JVM's zone
          .config("spark.sql.datetime.java8API.enabled", "true")
          // the generators write dates and timestamps from year 1 on: store them proleptic, as Spark computes
          .config("spark.sql.parquet.datetimeRebaseModeInWrite", "CORRECTED")
          .config("spark.sql.parquet.int96RebaseModeInWrite", "CORRECTED")
          // timestamps as Parquet's own INT64 microseconds, which the GPU scan reads (INT96 keeps the scan on the CPU)
          .config("spark.sql.parquet.outputTimestampType", "TIMESTAMP_MICROS");
      // the plugin lands from another branch: until it is on the classpath the harness still runs its own tests
      builder.config("spark.plugins", PLUGIN);
      session = builder.getOrCreate();
      checkBackend();
    }
    return session;
  }

  /**
   * A builder for a test's own SparkContext (own-context tests: other settings than the shared one's), bound to
   * localhost, UI off, with the plugin on {@code backend}.
   */
  public static SparkSession.Builder ownContext(String master, String appName, String backend) {
    return SparkSession.builder().master(master).appName(appName)
        .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "localhost")
        .config("spark.ui.enabled", "false").config("spark.plugins", PLUGIN).config("spark.warp.backend", backend);
  }

  /** A suite asked to run on cuda must not pass on another backend: the plugin's runtime says what it opened. */
  private static void checkBackend() {
    String asked = System.getProperty(BACKEND_PROPERTY, "host");
    BackendKind running = GpuRuntime.get().devices().get(0).backend().kind();
    if (!running.name().equalsIgnoreCase(asked)) {
      throw new IllegalStateException("the suite asked for backend " + asked + " but the plugin runs " + running);
    }
  }

  /** A directory for this JVM's generated tables, deleted when the JVM exits. */
  public static synchronized Path scratchDir() {
    if (scratch == null) {
      try {
        scratch = Files.createTempDirectory("sparkwarp-it-");
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      Path dir = scratch;
      Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir)));
    }
    return scratch;
  }

  private static void deleteTree(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      // best effort at exit: the directory lives under java.io.tmpdir either way
    }
  }
}
