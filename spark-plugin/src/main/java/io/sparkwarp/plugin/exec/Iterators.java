package io.sparkwarp.plugin.exec;

import java.util.Iterator;

/** Small combinators over Java iterators, for partitions' batch streams. */
final class Iterators {
  private Iterators() {}

  /** The elements of {@code first}, then those of {@code then}, lazily. */
  static <T> Iterator<T> concat(Iterator<T> first, Iterator<T> then) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return first.hasNext() || then.hasNext();
      }

      @Override
      public T next() {
        return first.hasNext() ? first.next() : then.next();
      }
    };
  }
}
