package io.healbench.guard.service.gate;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;

/**
 * The gate's data (healcore/healcore_policy.json on the classpath): the import allowlist, the
 * forbidden names and attributes, the reflective calls, and the reason given for every kind of
 * rejection. The file's single source is healrt/healrt/healcore_policy.json (healrt's local re-check
 * reads the same file); guard-service/pom.xml and cli/pom.xml put it on the classpath.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record HealCorePolicy(
        @JsonProperty(value = "version", required = true) String version,
        @JsonProperty(value = "allowed_modules", required = true) Set<String> allowedModules,
        @JsonProperty(value = "excluded_keywords", required = true) Map<String, String> excludedKeywords,
        @JsonProperty(value = "forbidden_names", required = true) Map<String, String> forbiddenNames,
        @JsonProperty(value = "forbidden_attributes", required = true) Map<String, String> forbiddenAttributes,
        @JsonProperty(value = "reflective_calls", required = true) ReflectiveCalls reflectiveCalls,
        @JsonProperty(value = "single_argument_calls", required = true) SingleArgumentCalls singleArgumentCalls,
        @JsonProperty(value = "format_calls", required = true) FormatCalls formatCalls,
        @JsonProperty(value = "reasons", required = true) Map<String, String> reasons) {

    public static final String DEFAULT_RESOURCE = "healcore/healcore_policy.json";

    /** Which positional arguments of a reflective callable name an attribute. */
    public enum NameArguments {
        FIRST, SECOND, EVERY
    }

    /** Calls that name an attribute by a string argument (getattr and friends). */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record ReflectiveCalls(
            @JsonProperty(value = "callables", required = true) Map<String, NameArguments> callables,
            @JsonProperty(value = "reason", required = true) String reason) {
    }

    /** Callables allowed only as a direct call with one positional argument whose result is not called (type). */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record SingleArgumentCalls(
            @JsonProperty(value = "callables", required = true) Set<String> callables,
            @JsonProperty(value = "reason", required = true) String reason) {
    }

    /** str methods whose template's replacement fields walk attributes ({0.attr}). */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record FormatCalls(@JsonProperty(value = "methods", required = true) Set<String> methods) {
    }

    public HealCorePolicy {
        for (Rejection rejection : Rejection.values()) {
            if (!reasons.containsKey(rejection.key())) {
                throw new IllegalArgumentException("HealCore policy " + version + " lacks reasons." + rejection.key());
            }
        }
        allowedModules = Set.copyOf(allowedModules);
        excludedKeywords = Map.copyOf(excludedKeywords);
        forbiddenNames = Map.copyOf(forbiddenNames);
        forbiddenAttributes = Map.copyOf(forbiddenAttributes);
        reasons = Map.copyOf(reasons);
    }

    /** Loads the policy shipped with the gate. */
    public static HealCorePolicy loadDefault() {
        try (InputStream in = HealCorePolicy.class.getClassLoader().getResourceAsStream(DEFAULT_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("HealCore policy not on the classpath: " + DEFAULT_RESOURCE);
            }
            return JsonMapper.builder()
                    .enable(MapperFeature.ACCEPT_CASE_INSENSITIVE_ENUMS) // "second" -> SECOND
                    .build()
                    .readValue(in, HealCorePolicy.class);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read HealCore policy " + DEFAULT_RESOURCE, e);
        }
    }

    public String reason(Rejection rejection) {
        return reasons.get(rejection.key());
    }

    /** True for an allowlisted module or a submodule of one (os.path, collections.abc). */
    public boolean allowsModule(String dottedName) {
        int dot = dottedName.indexOf('.');
        return allowedModules.contains(dot < 0 ? dottedName : dottedName.substring(0, dot));
    }
}
