package io.geneid.cli;

/**
 * Bad input found by a command: printed as one line, exit status {@link GeneIdCli#BAD_INPUT}, then its
 * {@link #detail()} (text to copy, such as YAML) as it is, if any.
 */
final class BadInputException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final String detail;

  BadInputException(String message) {
    this(message, "");
  }

  /** A message, and lines printed after it unchanged (end them with a newline). */
  BadInputException(String message, String detail) {
    super(message, null, false, false);
    this.detail = detail;
  }

  /** The lines printed after the message; empty if none. */
  String detail() {
    return detail;
  }
}
