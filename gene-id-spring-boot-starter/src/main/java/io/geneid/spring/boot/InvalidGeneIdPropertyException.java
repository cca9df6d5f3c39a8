package io.geneid.spring.boot;

/**
 * A {@code gene-id.*} property is out of range; the message names the property, its value and the allowed range.
 * Reported at start-up by {@link InvalidGeneIdPropertyFailureAnalyzer}.
 */
public final class InvalidGeneIdPropertyException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  InvalidGeneIdPropertyException(String message) {
    super(message);
  }

  InvalidGeneIdPropertyException(String message, Throwable cause) {
    super(message, cause);
  }
}
