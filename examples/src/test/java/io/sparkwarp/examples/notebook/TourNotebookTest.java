package io.sparkwarp.examples.notebook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The committed notebooks are clean nbformat 4 files for their kernels: unique cell ids, no empty cell, no stored
 * outputs. Running them is TourNotebookRunTest's (integration-tests, after the examples jar is built).
 */
class TourNotebookTest {
  @ParameterizedTest
  @CsvSource({"notebook/sparkwarp-tour.ipynb, sparkwarp-java", "notebook/sparkwarp-tour-pyspark.ipynb, python3"})
  void isACleanNotebookForItsKernel(String file, String kernel) {
    NotebookFile nb = NotebookFile.read(Path.of(file));
    assertEquals(4, nb.json().get("nbformat").asInt());
    assertEquals(kernel, nb.json().at("/metadata/kernelspec/name").asText());
    Set<String> ids = new HashSet<>();
    for (JsonNode cell : nb.cells()) {
      assertTrue(ids.add(cell.get("id").asText()), "cell ids are unique");
      assertFalse(NotebookFile.source(cell).isBlank(), cell.get("id").asText());
    }
    for (JsonNode cell : nb.codeCells()) {
      assertEquals(0, cell.get("outputs").size(), "a committed cell carries no outputs: " + NotebookFile.source(cell));
    }
  }
}
