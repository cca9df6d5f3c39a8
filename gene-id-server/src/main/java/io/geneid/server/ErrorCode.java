package io.geneid.server;

import io.grpc.Status;

/** The error codes of the API: one code string, its HTTP status and its gRPC status (docs/server.md, "Errors"). */
public enum ErrorCode {
  INVALID_ARGUMENT("invalid_argument", 400, Status.Code.INVALID_ARGUMENT),
  UNAUTHENTICATED("unauthenticated", 401, Status.Code.UNAUTHENTICATED),
  NOT_FOUND("not_found", 404, Status.Code.UNIMPLEMENTED),
  UNKNOWN_KEY("unknown_key", 404, Status.Code.NOT_FOUND),
  METHOD_NOT_ALLOWED("method_not_allowed", 405, Status.Code.UNIMPLEMENTED),
  PAYLOAD_TOO_LARGE("payload_too_large", 413, Status.Code.RESOURCE_EXHAUSTED),
  REQUEST_TIMEOUT("request_timeout", 408, Status.Code.DEADLINE_EXCEEDED),
  TOO_MANY_REQUESTS("too_many_requests", 429, Status.Code.RESOURCE_EXHAUSTED),
  UNAVAILABLE("unavailable", 503, Status.Code.UNAVAILABLE),
  INTERNAL("internal", 500, Status.Code.INTERNAL);

  private final String code;
  private final int httpStatus;
  private final Status.Code grpcStatus;

  ErrorCode(String code, int httpStatus, Status.Code grpcStatus) {
    this.code = code;
    this.httpStatus = httpStatus;
    this.grpcStatus = grpcStatus;
  }

  /** The code string of the JSON error and of the gRPC trailer {@code gene-id-error-code}. */
  public String code() {
    return code;
  }

  public int httpStatus() {
    return httpStatus;
  }

  public Status.Code grpcStatus() {
    return grpcStatus;
  }
}
