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
            long maxSteps,
            @ConfigProperty(name = "healbench.guard.analysis-concurrency", defaultValue = "" + HealAnalyzer.DEFAULT_CONCURRENCY)
            int concurrency,
            @ConfigProperty(name = "healbench.guard.analysis-queue", defaultValue = "" + HealAnalyzer.DEFAULT_QUEUE) int queue) {
        return new HealAnalyzer(timeLimit, maxSteps, concurrency, queue);
    }
}
