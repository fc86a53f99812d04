package io.sparkwarp.plugin.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/CONFIG.md is generated from WarpConf; this fails when the two drift apart. */
class ConfigDocTest {
  private static final Path DOC = Path.of("..", "docs", "CONFIG.md");

  @Test
  void configDocIsUpToDate() throws IOException {
    String expected = ConfigDoc.render();
    if (Boolean.getBoolean("sparkwarp.updateDocs")) {
      Files.writeString(DOC, expected, StandardCharsets.UTF_8);
    }
    String actual = Files.exists(DOC) ? Files.readString(DOC, StandardCharsets.UTF_8) : "";
    assertEquals(expected, actual, "docs/CONFIG.md is stale; regenerate it with: mvn -pl spark-plugin -am test "
        + "-Dtest=ConfigDocTest -Dsparkwarp.updateDocs=true -Dsurefire.failIfNoSpecifiedTests=false");
  }
}
