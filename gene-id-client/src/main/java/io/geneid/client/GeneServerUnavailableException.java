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

  /** The same failure, thrown again to another caller that waited for the same request (this one is the cause). */
  GeneServerUnavailableException rethrown() {
    return new GeneServerUnavailableException(getMessage(), addresses, this);
  }
}
