package io.sparkwarp.examples.notebook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;

/**
 * The tour notebook as CI checks it: its JSON is a clean notebook for the sparkwarp-java kernel, and every code
 * cell, run in order by the kernel's own cell runner ({@link JShellCells}) without Jupyter, prints output and
 * throws nothing: the session falls back to the host backend without a GPU, the plan shows plugin operators, the
 * answers match, the charts render. {@code examples/notebook/run-notebook.sh} runs it through Jupyter itself.
 */
class TourNotebookTest {
  private static final Path NOTEBOOK = Path.of("notebook/sparkwarp-tour.ipynb");

  @Test
  void isACleanNotebookForTheJavaKernel() throws IOException {
    JsonNode nb = new ObjectMapper().readTree(NOTEBOOK.toFile());
    assertEquals(4, nb.get("nbformat").asInt());
    assertEquals("sparkwarp-java", nb.at("/metadata/kernelspec/name").asText());
    Set<String> ids = new HashSet<>();
    for (JsonNode cell : nb.get("cells")) {
      assertTrue(ids.add(cell.get("id").asText()), "cell ids are unique");
      assertFalse(source(cell).isBlank(), cell.get("id").asText());
      if (cell.get("cell_type").asText().equals("code")) {
        assertEquals(0, cell.get("outputs").size(), "the committed notebook carries no outputs: " + source(cell));
      }
    }
  }

  @Test
  void everyCodeCellRunsAndPrints() throws IOException {
    List<String> cells = StreamSupport.stream(new ObjectMapper().readTree(NOTEBOOK.toFile()).get("cells")
        .spliterator(), false).filter(c -> c.get("cell_type").asText().equals("code")).map(c -> source(c)).toList();
    List<String> outputs = new ArrayList<>();
    PrintStream stdout = System.out;
    try (JShellCells shell = new JShellCells()) {
      for (String cell : cells) {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        String value;
        try {
          value = shell.run(cell);
        } finally {
          System.setOut(stdout);
        }
        String output = captured.toString(StandardCharsets.UTF_8) + (value == null ? "" : value);
        assertFalse(output.isBlank(), "a cell without output:\n" + cell);
        outputs.add(output);
      }
    }
    String all = String.join("\n", outputs);
    assertTrue(all.contains("plugin active: true"), all);
    assertTrue(all.contains("GpuBroadcastHashJoinExec") || all.contains("GpuShuffledHashJoinExec"), all);
    assertTrue(all.contains("HostToGpu"), all);
    assertTrue(all.contains("the same answer"), all);
    assertFalse(all.contains("DIFFERENT"), all);
    assertTrue(all.contains("! "), "fallback reasons are shown\n" + all);
    assertTrue(all.contains("bytes over PCIe"), "metrics are read back\n" + all);
    assertEquals(2, all.lines().filter(l -> l.startsWith("[chart '")).count(), all);
  }

  private static String source(JsonNode cell) {
    StringBuilder s = new StringBuilder();
    cell.get("source").forEach(line -> s.append(line.asText()));
    return s.toString();
  }
}
