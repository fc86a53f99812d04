package io.sparkwarp.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.Test;

/** The tests' own log4j configuration (src/test/resources) is one a user gave: it is left as it is. */
class QuietLoggingTest {
  @Test
  void leavesAConfigurationTheUserGaveAlone() {
    Level before = LogManager.getRootLogger().getLevel();
    try {
      Configurator.setRootLevel(Level.INFO);
      QuietLogging.warnOnly();
      assertEquals(Level.INFO, LogManager.getRootLogger().getLevel());
    } finally {
      Configurator.setRootLevel(before);
    }
  }
}
