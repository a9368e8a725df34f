package io.healbench.guard.config;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.healbench.guard.service.gate.HealCoreGate;
import io.healbench.guard.service.gate.HealCorePolicy;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/** Makes the gate a bean: the shipped policy data and the configured size limit. */
@Singleton
public class HealCoreGateProducer {

    @Produces
    @Singleton
    HealCoreGate healCoreGate(
            @ConfigProperty(name = "healbench.guard.max-heal-code-bytes",
                    defaultValue = "" + HealCoreGate.DEFAULT_MAX_CODE_BYTES) int maxCodeBytes) {
        return new HealCoreGate(HealCorePolicy.loadDefault(), maxCodeBytes);
    }
}
