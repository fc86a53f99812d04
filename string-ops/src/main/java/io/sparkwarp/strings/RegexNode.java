package io.sparkwarp.strings;

import java.util.List;

/**
 * The regular-language core of a java.util.regex pattern, as {@link RegexParser} reads it: groups are gone (only
 * their structure remains), case-insensitivity and DOTALL are folded into the character sets. The predicates below
 * look at the language only, treating every assertion as satisfiable.
 */
sealed interface RegexNode {
  /** Whether it can match the empty string without passing an assertion. */
  boolean matchesEmptyFreely();

  /** Whether it can match the empty string, passing assertions or not. */
  boolean matchesEmpty();

  /** Whether it can match a non-empty string. */
  boolean matchesNonEmpty();

  /** Whether it can match anything at all. */
  default boolean matchesSomething() {
    return matchesEmpty() || matchesNonEmpty();
  }

  /** One character from {@code set}. */
  record Chars(CodePointSet set) implements RegexNode {
    @Override
    public boolean matchesEmptyFreely() {
      return false;
    }

    @Override
    public boolean matchesEmpty() {
      return false;
    }

    @Override
    public boolean matchesNonEmpty() {
      return !set.isEmpty();
    }
  }

  /** The items one after another; no items matches the empty string. */
  record Concat(List<RegexNode> items) implements RegexNode {
    @Override
    public boolean matchesEmptyFreely() {
      return items.stream().allMatch(RegexNode::matchesEmptyFreely);
    }

    @Override
    public boolean matchesEmpty() {
      return items.stream().allMatch(RegexNode::matchesEmpty);
    }

    @Override
    public boolean matchesNonEmpty() {
      return items.stream().allMatch(RegexNode::matchesSomething)
          && items.stream().anyMatch(RegexNode::matchesNonEmpty);
    }
  }

  /** Any one of the alternatives. */
  record Alternation(List<RegexNode> alternatives) implements RegexNode {
    @Override
    public boolean matchesEmptyFreely() {
      return alternatives.stream().anyMatch(RegexNode::matchesEmptyFreely);
    }

    @Override
    public boolean matchesEmpty() {
      return alternatives.stream().anyMatch(RegexNode::matchesEmpty);
    }

    @Override
    public boolean matchesNonEmpty() {
      return alternatives.stream().anyMatch(RegexNode::matchesNonEmpty);
    }
  }

  /** {@code body} repeated {@code min} to {@code max} times ({@link #UNBOUNDED}: no upper limit). */
  record Repeat(RegexNode body, int min, int max) implements RegexNode {
    static final int UNBOUNDED = -1;

    @Override
    public boolean matchesEmptyFreely() {
      return min == 0 || body.matchesEmptyFreely();
    }

    @Override
    public boolean matchesEmpty() {
      return min == 0 || body.matchesEmpty();
    }

    @Override
    public boolean matchesNonEmpty() {
      return max != 0 && body.matchesNonEmpty();
    }
  }

  /** A zero-width assertion. */
  record Anchor(ByteNfa.Assertion assertion) implements RegexNode {
    @Override
    public boolean matchesEmptyFreely() {
      return false;
    }

    @Override
    public boolean matchesEmpty() {
      return true;
    }

    @Override
    public boolean matchesNonEmpty() {
      return false;
    }
  }
}
