package io.sparkwarp.kernels.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Builds and runs a C++ harness of {@code src/test/cuda} that compiles CUDA kernels against the warp emulation, so CI
 * (which has no GPU) runs the kernels' own code: AddressSanitizer and UBSan where the compiler has them, a timeout
 * for a lane that skips a warp collective (which hangs the emulation). Skips the test without a C++20 compiler.
 */
public final class CpuKernelHarness {
  public static final Path SOURCES = Path.of("src/test/cuda");
  private static final long TIMEOUT_SECONDS = 600;

  private final Path binary;

  private CpuKernelHarness(Path binary) {
    this.binary = binary;
  }

  /** Compiles {@code SOURCES/<name>.cpp} into {@code work}. */
  public static CpuKernelHarness compile(String name, Path work) throws Exception {
    String cxx = System.getenv().getOrDefault("CXX", "g++");
    Path probe = work.resolve("probe.cpp");
    Files.writeString(probe, "#include <barrier>\nint main() { std::barrier<> b(1); b.arrive_and_wait(); }\n");
    String probeBinary = work.resolve("probe").toString();
    List<String> sanitizers = List.of("-fsanitize=address,undefined", "-fno-sanitize-recover=undefined");
    // sanitizers where they compile and their runtime starts here
    boolean sanitized = exec(work, cxx, "-std=c++20", "-pthread", sanitizers.get(0), probe.toString(), "-o",
        probeBinary) == 0 && exec(work, probeBinary) == 0;
    assumeTrue(sanitized || exec(work, cxx, "-std=c++20", "-pthread", probe.toString(), "-o", probeBinary) == 0,
        "no C++20 compiler (" + cxx + ") to run the kernels on the CPU");
    Path binary = work.resolve(name);
    List<String> command = new ArrayList<>(List.of(cxx, "-std=c++20", "-O1", "-g", "-pthread", "-Wall",
        "-Wno-unknown-pragmas", "-I", "src/main/cuda/include", "-I", "src/main/cuda", "-I", SOURCES.toString()));
    if (sanitized) command.addAll(sanitizers);
    command.addAll(List.of(SOURCES.resolve(name + ".cpp").toString(), "-o", binary.toString()));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), "compiling the kernels for the CPU failed:\n" + output);
    return new CpuKernelHarness(binary);
  }

  /** Runs the harness over the case in {@code dir}; fails on a hang or on any difference it prints. */
  public void run(Path dir, long seed) throws Exception {
    execute(List.of(binary.toString(), dir.toString()), dir.resolve("log.txt"), "seed " + seed);
  }

  /**
   * Runs the harness over the cases in {@code dirs}, as many at once as the machine has cores (each run is one
   * process whose emulated lanes mostly wait on each other); fails with the first case's failure, after every run.
   */
  public void runAll(List<Path> dirs, long seed) throws Exception {
    ExecutorService runs = Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors());
    try {
      List<Future<?>> results = new ArrayList<>();
      for (Path dir : dirs) {
        results.add(runs.submit(() -> {
          run(dir, seed);
          return null;
        }));
      }
      Throwable first = null;
      for (Future<?> result : results) {
        try {
          result.get();
        } catch (ExecutionException e) {
          if (first == null) first = e.getCause();
        }
      }
      if (first instanceof Error error) throw error;
      if (first != null) throw (Exception) first;
    } finally {
      runs.shutdownNow();
    }
  }

  /** Writes one case's files into a folder. */
  public interface CaseWriter<C> {
    void write(C c, Path dir) throws Exception;
  }

  /**
   * Runs the harness over each of {@code cases}, written by {@code writer} into {@code work/case<i>}; closes the
   * cases whatever happens.
   */
  public <C extends AutoCloseable> void runCases(List<C> cases, CaseWriter<C> writer, Path work, long seed)
      throws Exception {
    try {
      List<Path> dirs = new ArrayList<>();
      for (int i = 0; i < cases.size(); i++) {
        Path dir = work.resolve("case" + i);
        writer.write(cases.get(i), dir);
        dirs.add(dir);
      }
      runAll(dirs, seed);
    } finally {
      for (C c : cases) c.close();
    }
  }

  /** Runs a harness that makes its own cases and prints "ok" when each agrees with its reference. */
  public void runSelfChecking() throws Exception {
    Path log = binary.resolveSibling(binary.getFileName() + ".log");
    assertEquals("ok", execute(List.of(binary.toString()), log, binary.getFileName().toString()).strip());
  }

  /** Runs {@code command} with its output in {@code log}; returns the output, failing on a hang or an error. */
  private static String execute(List<String> command, Path log, String what) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("ASAN_OPTIONS", "detect_leaks=0");
    Process p = pb.redirectOutput(log.toFile()).start();
    boolean finished = p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS);
    if (!finished) p.destroyForcibly().waitFor();
    String output = Files.readString(log);
    assertTrue(finished, "the emulated kernels hung (a lane that skips a warp collective?), " + what + ":\n"
        + output);
    assertEquals(0, p.exitValue(), "the kernels disagree with their reference on the CPU, " + what + ":\n" + output);
    return output;
  }

  private static int exec(Path dir, String... command) throws Exception {
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    return p.waitFor();
  }
}
