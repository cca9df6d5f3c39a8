package io.geneid.server;

/**
 * A request the server refuses, with the code and the reason the client sees. The reason never holds a secret.
 */
public final class ApiException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final ErrorCode code;
  private final int retryAfterSeconds;

  public ApiException(ErrorCode code, String reason) {
    this(code, reason, 0);
  }

  /** With a {@code Retry-After} hint in seconds (0: none). */
  public ApiException(ErrorCode code, String reason, int retryAfterSeconds) {
    super(reason, null, false, false);
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  public ErrorCode code() {
    return code;
  }

  public String reason() {
    return getMessage();
  }

  public int retryAfterSeconds() {
    return retryAfterSeconds;
  }

  static ApiException invalid(String reason) {
    return new ApiException(ErrorCode.INVALID_ARGUMENT, reason);
  }
}
