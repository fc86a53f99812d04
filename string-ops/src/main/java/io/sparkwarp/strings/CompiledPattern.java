package io.sparkwarp.strings;

import io.sparkwarp.kernels.strings.StringMatcher;
import java.util.Optional;

/**
 * What every pattern compiler returns: a device matcher with exactly Spark's semantics, or why the predicate stays
 * on the CPU. {@link Unsupported} is a valid pattern the device cannot run (the reason is a short lowercase fact for
 * explain output); {@link Invalid} is a pattern Spark itself rejects, kept on the CPU so that Spark raises its own
 * error.
 */
public sealed interface CompiledPattern {
  /** The matcher, when the predicate can run on the device. */
  Optional<StringMatcher> deviceMatcher();

  /** One line for explain output. */
  String describe();

  /** The predicate runs on the device as {@code matcher}. */
  record Supported(StringMatcher matcher) implements CompiledPattern {
    @Override
    public Optional<StringMatcher> deviceMatcher() {
      return Optional.of(matcher);
    }

    @Override
    public String describe() {
      return matcher.describe();
    }
  }

  /** A valid pattern that stays on the CPU because of {@code reason}. */
  record Unsupported(String reason) implements CompiledPattern {
    @Override
    public Optional<StringMatcher> deviceMatcher() {
      return Optional.empty();
    }

    @Override
    public String describe() {
      return "not on the GPU: " + reason;
    }
  }

  /** A pattern Spark rejects with {@code message}. */
  record Invalid(String message) implements CompiledPattern {
    @Override
    public Optional<StringMatcher> deviceMatcher() {
      return Optional.empty();
    }

    @Override
    public String describe() {
      return "invalid pattern, left to Spark: " + message;
    }
  }
}
