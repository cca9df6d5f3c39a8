package io.geneid.core;

/**
 * Root of the exceptions gene-id throws when it cannot issue an id safely (a clock that stepped back too far, a
 * layout whose timestamp field ran out, a lost worker lease, ...). Bad arguments are reported with
 * {@link IllegalArgumentException} instead.
 */
public class GeneIdException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public GeneIdException(String message) {
    super(message);
  }

  public GeneIdException(String message, Throwable cause) {
    super(message, cause);
  }
}
