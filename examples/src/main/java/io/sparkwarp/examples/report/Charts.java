package io.sparkwarp.examples.report;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries.CategorySeriesRenderStyle;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The report's and the notebook's bar charts (XChart), one style for all: categories along x, labels rotated so
 * query names fit, PNG out.
 */
public final class Charts {
  private static final int WIDTH = 900;
  private static final int HEIGHT = 450;

  private Charts() {}

  /** Speed-up per query as bars, with the break-even line at 1. */
  public static CategoryChart speedUps(String title, List<String> names, List<Double> speedUps) {
    CategoryChart chart = base(title, "speed-up (CPU time / GPU time)");
    chart.addSeries("speed-up", names, speedUps);
    chart.addSeries("break-even", names, Collections.nCopies(names.size(), 1.0))
        .setChartCategorySeriesRenderStyle(CategorySeriesRenderStyle.Line).setMarker(SeriesMarkers.NONE);
    chart.getStyler().setOverlapped(true);
    return chart;
  }

  /** Wall time per query, CPU and GPU side by side. */
  public static CategoryChart times(String title, List<String> names, List<Double> cpuMillis,
      List<Double> gpuMillis) {
    CategoryChart chart = base(title, "ms (median)");
    chart.addSeries("plugin off", names, cpuMillis);
    chart.addSeries("plugin on", names, gpuMillis);
    return chart;
  }

  /** Measured values against their physical limits (PCIe, device memory), side by side. */
  public static CategoryChart againstLimits(String title, String unit, List<String> names, List<Double> values,
      List<Double> limits) {
    CategoryChart chart = base(title, unit);
    // a measurement's name may explain itself in parentheses; the report's table keeps that, the axis cannot
    names = names.stream().map(n -> n.replaceFirst(" \\(.*\\)$", "")).toList();
    chart.getStyler().setXAxisLabelRotation(20);
    chart.addSeries("measured", names, values);
    chart.addSeries("limit", names, limits);
    return chart;
  }

  /** Stacked bars: per query, each series' share (an operator's time), series in the map's order. */
  public static CategoryChart stacked(String title, String yTitle, List<String> names,
      Map<String, List<Double>> series) {
    CategoryChart chart = base(title, yTitle);
    series.forEach((name, values) -> chart.addSeries(name, names, values));
    chart.getStyler().setStacked(true);
    chart.getStyler().setLegendPosition(LegendPosition.OutsideE);  // the stacks fill the plot's height
    return chart;
  }

  /** One value per category. */
  public static CategoryChart bars(String title, String yTitle, String series, List<String> names,
      List<Double> values) {
    CategoryChart chart = base(title, yTitle);
    chart.addSeries(series, names, values);
    return chart;
  }

  private static CategoryChart base(String title, String yTitle) {
    CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).yAxisTitle(yTitle)
        .build();
    chart.getStyler().setLegendPosition(LegendPosition.InsideNE);
    chart.getStyler().setXAxisLabelRotation(45);
    chart.getStyler().setAvailableSpaceFill(0.8);
    return chart;
  }

  /** The chart as PNG bytes. */
  public static byte[] png(CategoryChart chart) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      BitmapEncoder.saveBitmap(chart, out, BitmapFormat.PNG);
      return out.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Writes the chart as a PNG file. */
  public static void writePng(CategoryChart chart, Path file) {
    try {
      Files.write(file, png(chart));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }
}
