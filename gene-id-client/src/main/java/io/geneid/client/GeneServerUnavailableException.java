package io.geneid.client;

import io.geneid.core.GeneIdException;
import java.net.URI;
import java.util.List;

/**
 * No gene-id server answered a request: every address was tried (each within the request time-out, the list gone
 * through as many rounds as configured) and each failed: it refused the connection, timed out, was not ready (HTTP
 * 503), or answered with a server error. The message names every address tried with what went wrong there; the
 * cause is the last failure. No id was issued to the caller, so a later retry cannot duplicate one.
 */
public final class GeneServerUnavailableException extends GeneIdException {
  private static final long serialVersionUID = 1L;

  private final List<URI> addresses;

  GeneServerUnavailableException(String message, List<URI> addresses, Throwable cause) {
    super(message, cause);
    this.addresses = List.copyOf(addresses);
  }

  /** The addresses tried, in the order they were tried (an address tried in two rounds appears twice). */
  public List<URI> addresses() {
    return addresses;
  }

  /**
   * The same failure for a caller that waited for the refill that failed: the same message, addresses and cause,
   * with the caller's stack; the refill thread's exception is added as suppressed.
   */
  GeneServerUnavailableException rethrown() {
    Throwable cause = getCause();
    GeneServerUnavailableException again = new GeneServerUnavailableException(getMessage(), addresses,
        cause == null ? this : cause);
    again.addSuppressed(this);
    return again;
  }
}
