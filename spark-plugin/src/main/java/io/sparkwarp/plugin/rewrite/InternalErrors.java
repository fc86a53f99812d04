package io.sparkwarp.plugin.rewrite;

import static io.sparkwarp.plugin.Throwables.sneaky;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.execution.SQLExecution;
import org.slf4j.Logger;
import scala.Option;
import scala.util.control.NonFatal;

/**
 * Exceptions thrown inside the plugin while it plans a query: the operator they happened in stays on the CPU with
 * the reason {@code internal error: <message>}, and the query runs as Spark alone would. Fatal JVM errors are not
 * caught. Logged as one WARN per query (AQE rewrites each stage of a query separately), stack traces at DEBUG.
 */
final class InternalErrors {
  /** Queries already warned about, by SQL execution id; bounded, as a log-deduplication aid only. */
  private static final Map<String, Boolean> WARNED = Collections.synchronizedMap(new LinkedHashMap<>() {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
      return size() > 1000;
    }
  });

  private final List<String> operators = new ArrayList<>();
  private final List<Throwable> errors = new ArrayList<>();

  /**
   * The reason to record for {@code error}, thrown while planning {@code operator}.
   *
   * @throws Throwable {@code error} itself when it is fatal (out of memory, a linkage error, an interrupt)
   */
  String record(String operator, Throwable error) {
    if (!NonFatal.apply(error)) throw sneaky(error);
    operators.add(operator);
    errors.add(error);
    return reason(error);
  }

  static String reason(Throwable error) {
    return "internal error: " + (error.getMessage() != null ? error.getMessage() : error.getClass().getName());
  }

  boolean isEmpty() {
    return errors.isEmpty();
  }

  /** One WARN for the query (the first rewrite of it that failed), every stack trace at DEBUG. */
  void log(Logger log) {
    if (errors.isEmpty()) return;
    for (int i = 0; i < errors.size(); i++) {
      log.debug("sparkwarp: internal error while planning " + operators.get(i), errors.get(i));
    }
    if (WARNED.putIfAbsent(queryId(), Boolean.TRUE) == null) {
      log.warn("sparkwarp: {} left on the CPU after an {}; the query runs as Spark alone would (stack traces at "
          + "DEBUG for io.sparkwarp)", String.join(", ", operators), reason(errors.get(0)));
    }
  }

  /** The SQL execution the rewrite runs for; a fresh id when there is none (planning outside an execution). */
  private static String queryId() {
    Option<SparkSession> session = SparkSession.getActiveSession();
    String id = session.isDefined()
        ? session.get().sparkContext().getLocalProperty(SQLExecution.EXECUTION_ID_KEY()) : null;
    return id != null ? id : "planning@" + System.nanoTime();
  }
}
