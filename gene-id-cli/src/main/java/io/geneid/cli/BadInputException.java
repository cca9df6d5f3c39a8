package io.geneid.cli;

/** Bad input found by a command: printed as one line, exit status {@link GeneIdCli#BAD_INPUT}. */
final class BadInputException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  BadInputException(String message) {
    super(message, null, false, false);
  }
}
