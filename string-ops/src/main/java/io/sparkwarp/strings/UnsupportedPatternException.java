package io.sparkwarp.strings;

/**
 * Thrown inside the compilers when a pattern is valid but cannot become a device matcher; its message is the reason
 * that explain output shows. The public entry points turn it into {@link CompiledPattern.Unsupported}.
 */
final class UnsupportedPatternException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  UnsupportedPatternException(String reason) {
    super(reason, null, false, false);
  }
}
