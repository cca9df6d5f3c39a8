package io.geneid.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns an {@link InvalidGeneIdPropertyException} into Spring Boot's "APPLICATION FAILED TO START" report. */
final class InvalidGeneIdPropertyFailureAnalyzer extends AbstractFailureAnalyzer<InvalidGeneIdPropertyException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, InvalidGeneIdPropertyException cause) {
    String action = cause.action();
    return new FailureAnalysis("Invalid gene-id configuration: " + cause.getMessage(), action != null ? action
        : "Fix the property in your application configuration. The id layout (gene-id.epoch, gene-id.timestamp-bits,"
            + " gene-id.worker-bits, gene-id.sequence-bits, gene-id.gene-bits) must be the same in every process"
            + " and must not change once ids are written.",
        cause);
  }
}
