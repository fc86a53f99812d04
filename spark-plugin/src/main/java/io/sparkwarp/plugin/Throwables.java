package io.sparkwarp.plugin;

/** Rethrowing through Java signatures that do not declare what Scala code throws and catches. */
public final class Throwables {
  private Throwables() {}

  /**
   * Throws {@code error} as it is, checked or not (Scala callers catch checked exceptions, such as Spark's
   * FetchFailedException, that a Java override cannot declare); the return type lets callers write {@code throw}.
   */
  @SuppressWarnings("unchecked")
  public static <E extends Throwable> RuntimeException sneaky(Throwable error) throws E {
    throw (E) error;
  }
}
