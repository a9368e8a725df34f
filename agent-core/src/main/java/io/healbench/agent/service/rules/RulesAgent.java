package io.healbench.agent.service.rules;

import io.healbench.agent.service.AgentDecision;
import io.healbench.agent.service.AgentDecision.Reraise;
import io.healbench.agent.service.AttemptSpec;
import io.healbench.agent.service.CrashObservation;
import io.healbench.agent.service.HealPoint;
import io.healbench.agent.service.HealingAgent;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;

/**
 * The offline baseline: writes HealCore heals from the live state of the crash (exception, failing statement,
 * locals, the enclosing function's source), never from knowledge of a particular bug.
 *
 * <p>The first rule that handles the crash's exception writes its heals, and {@link HealPlan} orders them for the
 * failing statement. The rules, by exception: {@link MissingKeyRule} (KeyError), {@link NoneAttributeRule}
 * (AttributeError on {@code None}), {@link ZeroDivisionRule} (ZeroDivisionError), {@link TypeErrorRule} (TypeError)
 * and {@link DefaultValueRule} (ValueError, IndexError). Any other exception is reraised.
 *
 * <p>Each attempt is decided by its own {@link RulesAttempt}, which remembers the attempt's heal points to return
 * early from a call whose local repair already failed.
 */
@ApplicationScoped
public class RulesAgent implements HealingAgent {

    public static final String NAME = "rules";

    /** The families are disjoint, so the order only fixes which rule is asked first. */
    private static final List<HealRule> RULES = List.of(new MissingKeyRule(), new NoneAttributeRule(),
            new ZeroDivisionRule(), new TypeErrorRule(), new DefaultValueRule("ValueError", "IndexError"));

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public HealingAgent forAttempt(AttemptSpec spec) {
        return new RulesAttempt(this);
    }

    /** Without an attempt's history, every crash is decided as one seen for the first time. */
    @Override
    public AgentDecision decide(HealPoint point) {
        return HealPlan.firstUnrefused(plan(point.crash()), point.rejected());
    }

    /** The ordered plan for a crash seen for the first time: candidate heals, most specific first, then a reraise. */
    List<AgentDecision> plan(CrashObservation crash) {
        return plan(crash, false);
    }

    /** The ordered plan; with {@code exitEarly} (a local repair of this call already failed) an early return first. */
    List<AgentDecision> plan(CrashObservation crash, boolean exitEarly) {
        for (HealRule rule : RULES) {
            if (rule.handles(crash)) {
                return HealPlan.of(rule, crash, exitEarly);
            }
        }
        return List.of(new Reraise("no rule for " + crash.exceptionType() + ": " + crash.exceptionMessage()));
    }
}
