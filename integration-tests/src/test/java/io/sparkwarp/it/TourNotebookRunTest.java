package io.sparkwarp.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sparkwarp.examples.notebook.JShellCells;
import io.sparkwarp.examples.notebook.NotebookFile;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The tour notebook executed as a user would: {@code examples/notebook/run-notebook.sh} runs it headless through
 * Jupyter and the Java kernel (installing Debian's nbconvert when missing), here with this build's classpath since
 * nothing is installed in the local repository during {@code mvn verify}. Where Jupyter cannot be installed (no
 * apt-get, no root), the same code cells run through the kernel's cell runner instead of the test being skipped, so
 * the Java of every cell is still checked. Either way: every code cell has output and none an error, the session
 * fell back to the host backend without a GPU, the plan shows plugin operators, the answers match, and the charts
 * were made.
 */
@Tag("own-context")  // without Jupyter the cells start their session in this JVM: not beside SharedSpark's
class TourNotebookRunTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path NOTEBOOK = ROOT.resolve("examples/notebook/sparkwarp-tour.ipynb");
  /** run-notebook.sh's exit code for "Jupyter is missing and cannot be installed here". */
  private static final int NO_JUPYTER = 3;

  @Test
  void everyCodeCellRunsAndShowsThePluginAtWork() throws Exception {
    Path out = Path.of("target/notebook-run").toAbsolutePath();
    Path log = Files.createDirectories(out).resolve("run-notebook.log");
    ProcessBuilder run = new ProcessBuilder(ROOT.resolve("examples/notebook/run-notebook.sh").toString(),
        out.toString()).redirectErrorStream(true).redirectOutput(log.toFile());
    run.environment().put("SPARKWARP_CLASSPATH", kernelClasspath());
    run.environment().put("SPARKWARP_JVM_OPENS", System.getProperty("spark.test.jvm.opens", ""));
    Process process = run.start();
    if (!process.waitFor(10, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError("run-notebook.sh took over 10 minutes; its log: " + log);
    }
    List<String> outputs;
    if (process.exitValue() == NO_JUPYTER) {
      System.err.println("TourNotebookRunTest: Jupyter cannot be installed here, so the notebook's code cells run"
          + " through the kernel's cell runner instead: " + Files.readString(log).strip());
      outputs = runCellsWithoutJupyter();
    } else {
      assertEquals(0, process.exitValue(), () -> "run-notebook.sh failed:\n" + tail(log));
      outputs = executedOutputs(NotebookFile.read(out.resolve("sparkwarp-tour.ipynb")));
    }

    String all = String.join("\n", outputs);
    for (int i = 0; i < outputs.size(); i++) {
      assertFalse(outputs.get(i).isBlank(), "code cell " + i + " printed nothing");
    }
    assertTrue(all.contains("plugin active: true"), all);
    assertTrue(all.contains("GpuBroadcastHashJoinExec") || all.contains("GpuShuffledHashJoinExec"), all);
    assertTrue(all.contains("HostToGpu") && all.contains("GpuFilter"), all);
    assertTrue(all.contains("the same answer") && !all.contains("DIFFERENT"), all);
    assertTrue(all.contains("! "), "fallback reasons are shown\n" + all);
    assertTrue(all.contains("bytes over PCIe"), "metrics are read back\n" + all);
    assertEquals(2, all.lines().filter(line -> line.startsWith("[chart ")).count(), all);
  }

  /**
   * Per code cell of the executed notebook, its text outputs, with "[chart ...]" for each PNG; fails on an error
   * output.
   */
  private static List<String> executedOutputs(NotebookFile executed) {
    List<String> outputs = new ArrayList<>();
    for (JsonNode cell : executed.codeCells()) {
      StringBuilder text = new StringBuilder();
      for (JsonNode output : cell.get("outputs")) {
        assertFalse(output.get("output_type").asText().equals("error"), () -> "a cell failed: " + output);
        JsonNode data = output.path("data");
        if (output.has("text")) {
          text.append(NotebookFile.multiline(output.get("text")));
        } else if (data.has("image/png")) {
          text.append("[chart ").append(data.path("text/plain")).append("]\n");
        } else if (data.has("text/plain")) {
          text.append(NotebookFile.multiline(data.get("text/plain")));
        }
      }
      outputs.add(text.toString());
    }
    return outputs;
  }

  /** Runs the notebook's code cells in order in this JVM, as the kernel would; returns what each printed. */
  private static List<String> runCellsWithoutJupyter() {
    List<String> outputs = new ArrayList<>();
    PrintStream stdout = System.out;
    try (JShellCells cells = new JShellCells()) {
      for (JsonNode cell : NotebookFile.read(NOTEBOOK).codeCells()) {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        String value;
        try {
          value = cells.run(NotebookFile.source(cell));
        } finally {
          System.setOut(stdout);
        }
        outputs.add(captured.toString(StandardCharsets.UTF_8) + (value == null ? "" : value));
      }
    }
    return outputs;
  }

  /**
   * This build's classpath (surefire's, not its manifest-only booter jar) for the kernel, less this module's test
   * classes: their log4j set-up is the tests' own.
   */
  private static String kernelClasspath() {
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    return Arrays.stream(classpath.split(File.pathSeparator)).filter(entry -> !entry.endsWith("test-classes"))
        .collect(Collectors.joining(File.pathSeparator));
  }

  private static String tail(Path log) {
    try {
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 60), lines.size()));
    } catch (IOException e) {
      return "(cannot read " + log + ": " + e + ")";
    }
  }
}
