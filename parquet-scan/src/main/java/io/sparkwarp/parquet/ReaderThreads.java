package io.sparkwarp.parquet;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads for Parquet I/O: on executors a fixed pool for positioned reads (sized by the first scan that asks), and
 * an unbounded one on which each task's next batch is gathered while the current one is on the device; on the
 * driver a fixed pool that reads footers at planning.
 */
final class ReaderThreads {
  private static volatile ExecutorService reads;
  private static final ExecutorService PREFETCH = Executors.newCachedThreadPool(daemon("sparkwarp-parquet-prefetch"));
  /** Footers read at once while a scan is planned: each read is mostly waiting (a request to an object store). */
  private static final int FOOTER_THREADS = 16;
  private static final ExecutorService FOOTERS = Executors.newFixedThreadPool(FOOTER_THREADS,
      daemon("sparkwarp-parquet-footers"));

  private ReaderThreads() {}

  static ExecutorService reads(int threads) {
    ExecutorService pool = reads;
    if (pool == null) {
      synchronized (ReaderThreads.class) {
        if (reads == null) reads = Executors.newFixedThreadPool(threads, daemon("sparkwarp-parquet-read"));
        pool = reads;
      }
    }
    return pool;
  }

  static ExecutorService prefetch() {
    return PREFETCH;
  }

  static ExecutorService footers() {
    return FOOTERS;
  }

  private static ThreadFactory daemon(String name) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      Thread t = new Thread(r, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
