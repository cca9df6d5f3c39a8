package io.geneid.spring.boot;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a lease or segment store that fails at start-up (unreachable, refusing the credentials, without its table)
 * into Spring Boot's "APPLICATION FAILED TO START" report: the store, the property that points at it, the cause in
 * one line and the fix, instead of a stack trace with the cause a dozen "Caused by" down.
 */
final class GeneIdStoreFailureAnalyzer extends AbstractFailureAnalyzer<GeneIdStoreException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, GeneIdStoreException cause) {
    return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
  }
}
