package io.sparkwarp.strings;

/**
 * Thrown inside the compilers for a pattern Spark rejects; its message is Spark's. The public entry points turn it
 * into {@link CompiledPattern.Invalid}.
 */
final class InvalidPatternException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  InvalidPatternException(String message) {
    super(message, null, false, false);
  }
}
