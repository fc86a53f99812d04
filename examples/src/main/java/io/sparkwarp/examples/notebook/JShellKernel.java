package io.sparkwarp.examples.notebook;

import java.nio.file.Files;
import java.nio.file.Path;
import io.sparkwarp.examples.QuietLogging;
import java.util.List;
import org.dflib.jjava.jupyter.channels.JupyterConnection;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.BaseKernelBuilder;
import org.dflib.jjava.jupyter.kernel.KernelConnectionProperties;
import org.dflib.jjava.jupyter.kernel.LanguageInfo;
import org.dflib.jjava.jupyter.kernel.ReplacementOptions;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.dflib.jjava.jupyter.kernel.magic.MagicParser;

/**
 * A small Jupyter kernel for Java: the Jupyter protocol from jjava-jupyter (Maven Central), the cells run by
 * {@link JShellCells} in this JVM. Started by Jupyter with the connection file's path
 * ({@code examples/notebook/run-notebook.sh} writes the kernel spec); the JVM's classpath is what cells can use.
 */
public final class JShellKernel extends BaseKernel {
  private final JShellCells cells = new JShellCells();

  private JShellKernel(Builder b) {
    super(b.name(), b.version(), new LanguageInfo("java", Runtime.version().toString(), "text/x-java", ".java",
        "java", "text/x-java", "java"), List.of(), b.history(), b.io(), b.comms(), b.renderer(), b.magicParser(),
        b.magics(), false, b.styler());
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: JShellKernel CONNECTION_FILE (Jupyter passes it)");
      System.exit(2);
    }
    // before any cell starts Spark: its log then goes to this process's stderr (the Jupyter server's terminal), not
    // into the cell that happens to run
    QuietLogging.warnOnly();
    System.setProperty("java.awt.headless", "true");
    KernelConnectionProperties connection = KernelConnectionProperties.parse(Files.readString(Path.of(args[0])));
    JShellKernel kernel = new Builder().name("sparkwarp-java").version("1").build();
    kernel.onStartup();  // makes it the JVM's notebook kernel, which Notebook.show displays through
    JupyterConnection jupyter = new JupyterConnection(connection);
    kernel.becomeHandlerForConnection(jupyter);
    jupyter.connect();
    jupyter.waitUntilClose();
  }

  /** The kernel running this JVM's cells, or null outside a notebook (jjava's accessor throws instead). */
  static BaseKernel running() {
    return notebookKernel;
  }

  @Override
  public Object evalRaw(String code) {
    return cells.run(code);
  }

  @Override
  public DisplayData inspect(String code, int at, boolean extraDetail) {
    return null;  // no documentation lookup
  }

  @Override
  public ReplacementOptions complete(String code, int at) {
    int[] anchor = new int[1];
    List<String> suggestions = cells.suggestions(code, at, anchor);
    return suggestions.isEmpty() ? null : new ReplacementOptions(suggestions, anchor[0], at);
  }

  @Override
  public String isComplete(String code) {
    return switch (cells.completeness(code)) {
      case COMPLETE, COMPLETE_WITH_SEMI, EMPTY -> IS_COMPLETE_YES;
      case DEFINITELY_INCOMPLETE, CONSIDERED_INCOMPLETE -> IS_COMPLETE_MAYBE;
      case UNKNOWN -> IS_COMPLETE_BAD;
    };
  }

  @Override
  public void interrupt() {
    cells.stop();
  }

  @Override
  public void onShutdown(boolean restart) {
    cells.close();
    super.onShutdown(restart);
  }

  @Override
  public String getBanner() {
    return "sparkwarp Java kernel (JShell " + Runtime.version() + ")";
  }

  /** Exposes the builder's parts, which jjava-jupyter keeps protected. */
  private static final class Builder extends BaseKernelBuilder<Builder, JShellKernel> {
    @Override
    public JShellKernel build() {
      return new JShellKernel(this);
    }

    String name() {
      return buildName();
    }

    String version() {
      return buildVersion();
    }

    org.dflib.jjava.jupyter.kernel.history.HistoryManager history() {
      return buildHistoryManager();
    }

    org.dflib.jjava.jupyter.kernel.JupyterIO io() {
      return buildJupyterIO(buildJupyterIOEncoding());
    }

    org.dflib.jjava.jupyter.kernel.comm.CommManager comms() {
      return buildCommManager();
    }

    org.dflib.jjava.jupyter.kernel.display.Renderer renderer() {
      return buildRenderer();
    }

    MagicParser magicParser() {
      // line magics after "%" at a line's start, cell magics after "%%": the cells use none
      return new MagicParser("(?<=^|\n)%", "%%", buildMagicTranspiler());
    }

    org.dflib.jjava.jupyter.kernel.magic.MagicsRegistry magics() {
      return buildMagicsRegistry();
    }

    org.dflib.jjava.jupyter.kernel.util.StringStyler styler() {
      return buildErrorStyler();
    }
  }
}
