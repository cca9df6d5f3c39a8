package io.geneid.spring.boot;

import org.jspecify.annotations.Nullable;

/**
 * A {@code gene-id.*} property is out of range, or disagrees with a setting elsewhere; the message names the property,
 * its value and the allowed range or the other value. Reported at start-up by
 * {@link InvalidGeneIdPropertyFailureAnalyzer}.
 */
public final class InvalidGeneIdPropertyException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final @Nullable String action;

  InvalidGeneIdPropertyException(String message) {
    this(message, (String) null);
  }

  InvalidGeneIdPropertyException(String message, @Nullable String action) {
    super(message);
    this.action = action;
  }

  InvalidGeneIdPropertyException(String message, Throwable cause) {
    super(message, cause);
    this.action = null;
  }

  /** What to change, when it is more than fixing the property the message names; null otherwise. */
  @Nullable String action() {
    return action;
  }
}
