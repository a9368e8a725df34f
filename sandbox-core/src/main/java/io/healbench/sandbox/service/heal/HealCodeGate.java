package io.healbench.sandbox.service.heal;

/** The HealCore gate: decides whether healing code may run at all. guard-service is authoritative. */
public interface HealCodeGate {

    /** Checks the code; throws {@link io.healbench.sandbox.service.SandboxException} when the gate cannot be reached. */
    GateAnswer check(String code);
}
