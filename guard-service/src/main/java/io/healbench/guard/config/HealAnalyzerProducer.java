package io.healbench.guard.config;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import java.time.Duration;

import io.healbench.guard.service.analysis.HealAnalyzer;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Makes the static analysis a bean with its configured budget. */
@Singleton
public class HealAnalyzerProducer {

    @Produces
    @Singleton
    HealAnalyzer healAnalyzer(
            @ConfigProperty(name = "healbench.guard.analysis-time-limit", defaultValue = "20s") Duration timeLimit,
            @ConfigProperty(name = "healbench.guard.analysis-max-steps", defaultValue = "" + HealAnalyzer.DEFAULT_MAX_STEPS)
            long maxSteps) {
        return new HealAnalyzer(timeLimit, maxSteps);
    }
}
