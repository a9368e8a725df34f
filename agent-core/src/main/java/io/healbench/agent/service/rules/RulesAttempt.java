package io.healbench.agent.service.rules;

import io.healbench.agent.service.AgentDecision;
import io.healbench.agent.service.AgentDecision.Heal;
import io.healbench.agent.service.CrashObservation;
import io.healbench.agent.service.HealPoint;
import io.healbench.common.heal.Resume;
import io.healbench.agent.service.HealingAgent;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The rules agent for one attempt ({@link RulesAgent#forAttempt}): the agent's plans, plus what the attempt has seen.
 * When a call that was healed and resumed crashes again (at another statement, or at the same one with no local
 * changed), or crashes at a site where that was seen before in the attempt, the local repair failed, and the plan
 * starts with an early return ({@link EarlyReturn}) instead. It holds no lock: the runner makes an attempt's calls
 * one at a time.
 */
final class RulesAttempt implements HealingAgent {

    private static final Pattern HEAL_BINDING = Pattern.compile("(?m)^\\s*([A-Za-z_]\\w*)\\s*=(?!=)");

    private final RulesAgent rules;
    private final TreeMap<Integer, Visit> visits = new TreeMap<>();
    private final Set<String> failedSites = new HashSet<>();

    RulesAttempt(RulesAgent rules) {
        this.rules = rules;
    }

    @Override
    public String name() {
        return rules.name();
    }

    @Override
    public AgentDecision decide(HealPoint point) {
        CrashObservation crash = point.crash();
        Optional<Invocation> here = Invocation.of(crash);
        boolean exitEarly = here.isPresent() && repairFailedBefore(crash.healPoint(), here.get());
        AgentDecision step = HealPlan.firstUnrefused(rules.plan(crash, exitEarly), point.rejected());
        here.ifPresent(call -> visits.put(crash.healPoint(), Visit.of(call, step, crash)));
        return step;
    }

    /**
     * True when a local repair already failed for this crash: the site is one where that was seen before; or the
     * latest earlier heal point in the same call was healed and resumed (skip or retry) and the call crashed again,
     * at another statement or at the same one with no local changed other than those the heal bound (no progress).
     * Records the sites involved.
     */
    private boolean repairFailedBefore(int healPoint, Invocation here) {
        if (failedSites.contains(here.site())) {
            return true;
        }
        Visit last = null;
        for (Visit visit : visits.headMap(healPoint, false).values()) {
            if (visit.invocation().key().equals(here.key())) {
                last = visit;
            }
        }
        if (last == null || last.resume() == null || last.resume() == Resume.RETURN) {
            return false;
        }
        Set<String> bound = last.bound();
        boolean failed = !last.invocation().site().equals(here.site())
                || withoutNames(last.invocation().state(), bound).equals(withoutNames(here.state(), bound));
        if (failed) {
            failedSites.add(last.invocation().site());
            failedSites.add(here.site());
        }
        return failed;
    }

    private static Map<String, String> withoutNames(Map<String, String> state, Set<String> names) {
        Map<String, String> out = new TreeMap<>(state);
        out.keySet().removeAll(names);
        return out;
    }

    /** The last decision at a heal point: where, how its heal resumed (null for a reraise), the names it bound. */
    private record Visit(Invocation invocation, Resume resume, Set<String> bound) {

        static Visit of(Invocation invocation, AgentDecision step, CrashObservation crash) {
            Resume resume = null;
            Set<String> bound = new HashSet<>(crash.statement().targets());
            if (step instanceof Heal heal) {
                resume = heal.resume();
                Matcher names = HEAL_BINDING.matcher(heal.code());
                while (names.find()) {
                    bound.add(names.group(1));
                }
            }
            return new Visit(invocation, resume, bound);
        }
    }
}
