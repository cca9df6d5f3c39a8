package io.geneid.client;

import io.geneid.core.GeneIdException;
import java.net.URI;

/**
 * A gene-id server answered and refused the request with a reason (an HTTP 4xx with the server's error code): a bad
 * argument, an unknown segment key, a missing or wrong bearer token, a batch too large. Every server of a fleet would
 * answer the same, so the client does not fail over to the next address; a retry does not help until the request or
 * the configuration changes.
 */
public final class GeneServerRefusedException extends GeneIdException {
  private static final long serialVersionUID = 1L;

  private final URI address;
  private final int status;
  private final String code;
  private final String reason;

  GeneServerRefusedException(URI address, int status, String code, String reason) {
    super("gene-id server " + address + " refused the request: HTTP " + status + " " + code + ": " + reason);
    this.address = address;
    this.status = status;
    this.code = code;
    this.reason = reason;
  }

  /** The server that answered. */
  public URI address() {
    return address;
  }

  /** The HTTP status, in {@code [400, 499]}. */
  public int status() {
    return status;
  }

  /** The server's error code (see docs/server.md). */
  public String code() {
    return code;
  }

  /** The server's reason, as it wrote it. */
  public String reason() {
    return reason;
  }
}
