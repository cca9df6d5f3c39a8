package io.geneid.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ContextConsumer;

/** Assertions on a context that must fail to start because of a gene-id property. */
final class StartupFailures {
  private StartupFailures() {}

  /** The start-up failure about a gene-id property (wrapped by Spring in bean creation exceptions). */
  static Throwable invalidProperty(AssertableApplicationContext context) {
    assertThat(context).hasFailed();
    for (Throwable t = context.getStartupFailure(); t != null; t = t.getCause()) {
      if (t instanceof InvalidGeneIdPropertyException) {
        return t;
      }
    }
    throw new AssertionError("no InvalidGeneIdPropertyException in", context.getStartupFailure());
  }

  /** The context failed to start with an {@link InvalidGeneIdPropertyException} saying exactly {@code message}. */
  static ContextConsumer<AssertableApplicationContext> failsWith(String message) {
    return context -> assertThat(invalidProperty(context)).hasMessage(message);
  }
}
