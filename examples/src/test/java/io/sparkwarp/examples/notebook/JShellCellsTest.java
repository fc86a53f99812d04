package io.sparkwarp.examples.notebook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sparkwarp.examples.notebook.JShellCells.CellException;
import jdk.jshell.SourceCodeAnalysis.Completeness;
import org.junit.jupiter.api.Test;

/** The notebook kernel's cell runner: several snippets a cell, the last expression's value, and readable errors. */
class JShellCellsTest {
  @Test
  void runsCellsOfSeveralSnippetsThatSeeEachOtherAndTheClasspath() {
    try (JShellCells cells = new JShellCells()) {
      assertNull(cells.run("import io.sparkwarp.examples.report.Charts;\nint twice(int x) { return 2 * x; }"));
      assertEquals("42", cells.run("int n = twice(20);\nn + 2"));
      assertNull(cells.run("System.out.print(\"\");"), "a void call has no value to show");
      assertEquals("\"Charts\"", cells.run("Charts.class.getSimpleName()"), "the JVM's classpath is visible");
      assertEquals(Completeness.DEFINITELY_INCOMPLETE, cells.completeness("int f() {"));
    }
  }

  @Test
  void reportsCodeThatDoesNotCompileOrThrowsWithTheSnippet() {
    try (JShellCells cells = new JShellCells()) {
      CellException compile = assertThrows(CellException.class, () -> cells.run("int x = \"text\";"));
      assertTrue(compile.getMessage().startsWith("does not compile: incompatible types"), compile.getMessage());
      assertTrue(compile.getMessage().endsWith("in: int x = \"text\";"), compile.getMessage());

      CellException thrown = assertThrows(CellException.class, () -> cells.run("Integer.parseInt(\"x\");"));
      assertTrue(thrown.getMessage().startsWith("java.lang.NumberFormatException: For input string: \"x\""),
          thrown.getMessage());
      assertEquals("7", cells.run("3 + 4"), "the shell goes on after an error");
    }
  }
}
