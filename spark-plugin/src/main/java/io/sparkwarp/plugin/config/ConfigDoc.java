package io.sparkwarp.plugin.config;

/** Renders docs/CONFIG.md from {@link WarpConf#entries()}, so the documentation cannot drift from the code. */
public final class ConfigDoc {
  private ConfigDoc() {}

  public static String render() {
    StringBuilder md = new StringBuilder();
    md.append("# sparkwarp configuration\n\n")
        .append("Generated from `io.sparkwarp.plugin.config.WarpConf` (a test fails when this file is stale; ")
        .append("regenerate with `mvn -pl spark-plugin -am test -Dtest=ConfigDocTest -Dsparkwarp.updateDocs=true ")
        .append("-Dsurefire.failIfNoSpecifiedTests=false`).\n\n")
        .append("Set them like any Spark setting: `--conf key=value`, `SparkSession.builder().config(key, value)`, ")
        .append("or for session settings `spark.conf.set(key, value)` between queries. A value that is not ")
        .append("allowed, or an unknown `spark.warp.*` key, fails with a message naming the key.\n\n")
        .append("| key | default | allowed | scope | meaning |\n|---|---|---|---|---|\n");
    for (ConfEntry<?> e : WarpConf.entries()) {
      md.append("| `").append(e.key()).append("` | `").append(e.defaultValue()).append("` | ").append(e.type())
          .append(" | ").append(e.scope().name().toLowerCase(java.util.Locale.ROOT)).append(" | ").append(e.doc())
          .append(" |\n");
    }
    return md.toString();
  }
}
