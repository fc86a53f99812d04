package io.sparkwarp.it.harness;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.Logger;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Property;

/**
 * What the plugin logs (every logger under {@value #PLUGIN_LOGGERS}) while it is open, read for the fallback lines
 * of {@code spark.warp.explain=NOT_ON_GPU}: {@code ! <NodeName> cannot run on the GPU because <reason>; <reason>}.
 */
public final class ExplainLog implements AutoCloseable {
  static final String PLUGIN_LOGGERS = "io.sparkwarp";
  private static final Pattern FALLBACK = Pattern.compile("!\\s*(\\S+) cannot run on the GPU because (.+)");

  private final List<String> lines = new CopyOnWriteArrayList<>();
  private final Logger logger = (Logger) LogManager.getLogger(PLUGIN_LOGGERS);
  private final AbstractAppender appender;

  private ExplainLog() {
    appender = new AbstractAppender("sparkwarp-it-explain", null, null, true, Property.EMPTY_ARRAY) {
      @Override
      public void append(LogEvent event) {
        // the explain tree may arrive as one multi-line message
        lines.addAll(Arrays.asList(event.getMessage().getFormattedMessage().split("\\R")));
      }
    };
    appender.start();
    logger.addAppender(appender);
  }

  public static ExplainLog capture() {
    return new ExplainLog();
  }

  /** Every line logged so far. */
  public List<String> lines() {
    return List.copyOf(lines);
  }

  /**
   * The reasons logged for nodes named {@code node}. FilterExec and Filter name the same node: Spark's node name
   * is the class name without "Exec", and either form may be given or logged.
   */
  public List<String> reasonsFor(String node) {
    List<String> reasons = new ArrayList<>();
    for (String line : lines) {
      Matcher m = FALLBACK.matcher(line);
      if (m.find() && withoutExec(m.group(1)).equals(withoutExec(node))) {
        reasons.addAll(Arrays.asList(m.group(2).trim().split(";\\s*")));
      }
    }
    return reasons;
  }

  private static String withoutExec(String name) {
    return name.endsWith("Exec") ? name.substring(0, name.length() - "Exec".length()) : name;
  }

  @Override
  public void close() {
    logger.removeAppender(appender);
    appender.stop();
  }
}
