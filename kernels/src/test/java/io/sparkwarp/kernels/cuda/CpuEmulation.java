package io.sparkwarp.kernels.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the CPU programs of {@code src/test/cuda}, which compile device code against an emulation of the warp
 * features it uses ({@code warp_emulation.h}), so CI (which has no GPU) checks the kernels' logic. Skips the test
 * without a C++20 compiler.
 */
final class CpuEmulation {
  static final Path SOURCES = Path.of("src/test/cuda");

  private CpuEmulation() {}

  /** Compiles {@code SOURCES/name.cpp} into {@code work/name}, with sanitizers where the compiler has them. */
  static Path compile(Path work, String name) throws Exception {
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
    assertEquals(0, p.waitFor(), "compiling " + name + " for the CPU failed:\n" + output);
    return binary;
  }

  private static int exec(Path dir, String... command) throws Exception {
    Process p = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    p.getInputStream().readAllBytes();
    return p.waitFor();
  }
}
