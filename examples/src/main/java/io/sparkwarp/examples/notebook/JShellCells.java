package io.sparkwarp.examples.notebook;

import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import jdk.jshell.Diag;
import jdk.jshell.EvalException;
import jdk.jshell.JShell;
import jdk.jshell.Snippet;
import jdk.jshell.SnippetEvent;
import jdk.jshell.SourceCodeAnalysis;
import jdk.jshell.SourceCodeAnalysis.Completeness;
import jdk.jshell.execution.LocalExecutionControlProvider;

/**
 * Runs notebook cells of Java as JShell snippets inside this JVM, so the cells see the JVM's classpath (Spark, the
 * plugin, the examples) and share its statics. A cell may hold several snippets (imports, declarations,
 * statements); its value is the last expression's, as in jshell. Used by {@link JShellKernel} and by the test that
 * runs the notebook's cells without Jupyter.
 */
public final class JShellCells implements AutoCloseable {
  private final JShell shell;

  public JShellCells() {
    shell = JShell.builder().executionEngine(new LocalExecutionControlProvider(), java.util.Map.of()).build();
    shell.addToClasspath(System.getProperty("java.class.path"));
  }

  /**
   * Runs {@code cell}; returns the value of its last snippet when that is an expression with a value, else null.
   *
   * @throws CellException for code that does not compile or throws, naming the snippet and the cause
   */
  public String run(String cell) {
    SourceCodeAnalysis analysis = shell.sourceCodeAnalysis();
    String remaining = cell;
    String value = null;
    while (!remaining.isBlank()) {
      SourceCodeAnalysis.CompletionInfo info = analysis.analyzeCompletion(remaining);
      if (info.completeness() == Completeness.EMPTY) break;
      if (!info.completeness().isComplete()) throw new CellException("incomplete code: " + remaining.strip(), null);
      value = null;
      for (SnippetEvent event : shell.eval(info.source())) {
        if (event.causeSnippet() != null) continue;  // a dependent snippet updated: no output of its own
        check(event);
        // an expression with a value becomes a temporary variable ($1); a void call is an expression without one
        Snippet.SubKind kind = event.snippet().subKind();
        boolean expression = kind == Snippet.SubKind.TEMP_VAR_EXPRESSION_SUBKIND
            || kind == Snippet.SubKind.VAR_VALUE_SUBKIND;
        if (expression && event.value() != null && !event.value().isEmpty()) value = event.value();
      }
      remaining = info.remaining();
    }
    return value;
  }

  private void check(SnippetEvent event) {
    if (event.exception() != null) {
      Exception e = event.exception();
      String type = e instanceof EvalException eval ? eval.getExceptionClassName() : e.getClass().getName();
      throw new CellException(type + ": " + e.getMessage() + "\n  in: " + event.snippet().source().strip(), e);
    }
    if (event.status() == Snippet.Status.REJECTED) {
      String errors = shell.diagnostics(event.snippet()).filter(Diag::isError)
          .map(d -> d.getMessage(Locale.ROOT)).collect(Collectors.joining("\n"));
      throw new CellException("does not compile: " + errors + "\n  in: " + event.snippet().source().strip(), null);
    }
  }

  /** Whether {@code code} is a complete cell, for the notebook's "is complete" requests. */
  public Completeness completeness(String code) {
    return shell.sourceCodeAnalysis().analyzeCompletion(code).completeness();
  }

  /** Completion candidates at {@code cursor}, with where the replaced text starts. */
  public List<String> suggestions(String code, int cursor, int[] anchor) {
    return shell.sourceCodeAnalysis().completionSuggestions(code, cursor, anchor).stream()
        .map(SourceCodeAnalysis.Suggestion::continuation).distinct().toList();
  }

  /** Stops the running cell (the notebook's interrupt). */
  public void stop() {
    shell.stop();
  }

  @Override
  public void close() {
    shell.close();
  }

  /** A cell that did not compile or threw. */
  public static final class CellException extends RuntimeException {
    CellException(String message, Throwable cause) {
      super(message, cause);
    }
  }
}
