package io.sparkwarp.examples;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.config.Configurator;
import org.apache.logging.log4j.core.config.DefaultConfiguration;

/**
 * Spark's INFO lines off from the start, for the demo, the benchmark and the notebook kernel. Spark loads its own
 * INFO profile only while log4j runs its unconfigured default (root at ERROR): a root level set before Spark's first
 * log keeps log4j's console at WARN instead, start-up lines included, which {@code spark.log.level} set on the
 * session comes too late for. A log4j configuration the user gave (a file on the classpath, such as Spark's
 * conf/log4j2.properties, or -Dlog4j2.configurationFile) is left alone.
 */
public final class QuietLogging {
  private QuietLogging() {}

  /** Logs WARN and above to the console that stands now (the kernel's own stderr, not a notebook cell). */
  public static void warnOnly() {
    LoggerContext context = (LoggerContext) LogManager.getContext(false);
    if (context.getConfiguration() instanceof DefaultConfiguration) Configurator.setRootLevel(Level.WARN);
  }
}
