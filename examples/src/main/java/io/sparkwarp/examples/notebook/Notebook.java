package io.sparkwarp.examples.notebook;

import io.sparkwarp.examples.report.Charts;
import java.util.Base64;
import org.dflib.jjava.jupyter.kernel.BaseKernel;
import org.dflib.jjava.jupyter.kernel.display.DisplayData;
import org.knowm.xchart.CategoryChart;

/** What the notebook's cells show besides printed text: charts, inline as PNG. */
public final class Notebook {
  private Notebook() {}

  /**
   * Shows {@code chart} under the running cell as a PNG. Outside a notebook kernel (the cells run by a plain
   * JShell, as in the test) it says what it would have shown.
   */
  public static void show(CategoryChart chart) {
    byte[] png = Charts.png(chart);
    BaseKernel kernel = JShellKernel.running();
    if (kernel == null) {
      System.out.printf("[chart '%s': %d bytes of PNG, shown inline in a notebook]%n", chart.getTitle(), png.length);
      return;
    }
    DisplayData data = new DisplayData(chart.getTitle());  // the text a viewer without images shows
    data.putData("image/png", Base64.getEncoder().encodeToString(png));
    kernel.display(data);
  }
}
