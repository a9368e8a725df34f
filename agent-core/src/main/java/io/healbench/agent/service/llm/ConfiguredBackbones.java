package io.healbench.agent.service.llm;

import io.healbench.agent.config.AgentSettings;
import io.healbench.common.backbone.BackboneCatalog;
import jakarta.enterprise.context.ApplicationScoped;

/** The worker's backbones file, read at each attempt's start so an edit applies to the next attempt. */
@ApplicationScoped
public class ConfiguredBackbones {

    private final AgentSettings settings;

    public ConfiguredBackbones(AgentSettings settings) {
        this.settings = settings;
    }

    public BackboneCatalog catalog() {
        return settings.backbonesFile().map(BackboneCatalog::load).orElseGet(BackboneCatalog::empty);
    }
}
