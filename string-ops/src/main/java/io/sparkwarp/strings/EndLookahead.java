package io.sparkwarp.strings;

/**
 * What the end anchors of java.util.regex demand of the rest of the input, as a tiny automaton over the bytes that
 * follow them. {@code $} and {@code \Z} (without MULTILINE or UNIX_LINES): the input ends there, or only a final line
 * terminator follows ({@code \r\n}, {@code \r}, U+0085, U+2028, U+2029, or {@code \n} unless the character before
 * the anchor is {@code \r}, since Java never matches between {@code \r} and {@code \n}). {@code \z}: the input ends
 * there. The regex automaton carries one obligation per anchor it has passed, as a bit mask of these states, and
 * advances it with every byte.
 */
final class EndLookahead {
  /** Just after a {@code $} whose preceding character is not {@code \r}. */
  private static final int START = 0;
  /** Just after a {@code $} that follows {@code \r}: a lone {@code \n} may not follow. */
  private static final int START_AFTER_CR = 1;
  private static final int SAW_CR = 2;
  /** A whole terminator was read: the input must end here. */
  private static final int DONE = 3;
  private static final int SAW_C2 = 4;
  private static final int SAW_E2 = 5;
  private static final int SAW_E2_80 = 6;

  /** Mask of the states where the input may end. */
  private static final int ACCEPTING = 1 << START | 1 << START_AFTER_CR | 1 << SAW_CR | 1 << DONE;

  /** Bits a mask may use. */
  static final int MASK_BITS = 7;

  /** Bytes this automaton tells apart: each needs a byte class of its own. */
  static final int[] SIGNIFICANT_BYTES = {0x0A, 0x0D, 0xC2, 0x85, 0xE2, 0x80, 0xA8, 0xA9};

  private EndLookahead() {}

  /** The obligation a {@code $} adds, given whether the byte before it is {@code \r}. */
  static int dollarMask(boolean afterCr) {
    return 1 << (afterCr ? START_AFTER_CR : START);
  }

  /** The obligation a {@code \z} adds. */
  static int endOfInputMask() {
    return 1 << DONE;
  }

  /** The obligations after one more byte, or -1 when one of them fails. */
  static int advance(int mask, int b) {
    int out = 0;
    for (int s = 0; s < MASK_BITS; s++) {
      if ((mask & 1 << s) == 0) continue;
      int t = next(s, b);
      if (t < 0) return -1;
      out |= 1 << t;
    }
    return out;
  }

  /** Whether the obligations allow no more bytes at all. */
  static boolean requiresEnd(int mask) {
    return (mask & 1 << DONE) != 0;
  }

  /** Whether the input may end with these obligations pending. */
  static boolean satisfiedAtEnd(int mask) {
    return (mask & ~ACCEPTING) == 0;
  }

  private static int next(int state, int b) {
    return switch (state) {
      case START, START_AFTER_CR -> switch (b) {
        case 0x0D -> SAW_CR;
        case 0x0A -> state == START ? DONE : -1;
        case 0xC2 -> SAW_C2;
        case 0xE2 -> SAW_E2;
        default -> -1;
      };
      case SAW_CR -> b == 0x0A ? DONE : -1;
      case SAW_C2 -> b == 0x85 ? DONE : -1;
      case SAW_E2 -> b == 0x80 ? SAW_E2_80 : -1;
      case SAW_E2_80 -> b == 0xA8 || b == 0xA9 ? DONE : -1;
      default -> -1;
    };
  }
}
