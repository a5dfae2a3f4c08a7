package dev.herald.spring;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a {@link HeraldConfigurationException} into Spring Boot's start-up failure report. */
public class HeraldFailureAnalyzer extends AbstractFailureAnalyzer<HeraldConfigurationException> {
  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, HeraldConfigurationException cause) {
    return new FailureAnalysis("Herald could not start. " + cause.getMessage(), cause.action(), cause);
  }
}
