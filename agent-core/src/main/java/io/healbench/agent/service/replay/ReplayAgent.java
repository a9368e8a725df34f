package io.healbench.agent.service.replay;

import io.healbench.agent.config.AgentSettings;
import io.healbench.agent.service.AgentRecord;
import io.healbench.agent.service.AgentDecision;
import io.healbench.agent.service.AgentDecision.Reraise;
import io.healbench.agent.service.AttemptSpec;
import io.healbench.agent.service.HealPoint;
import io.healbench.agent.service.HealingAgent;
import io.healbench.agent.service.RejectedHeal;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The offline baseline that replays recorded heals: the n-th heal point of an attempt gets the n-th heal of the
 * instance's heal set ({@link HealSet}, read from {@code healbench.agent.replay-dir} when the attempt starts), and
 * past the last one, or once the sandbox refused the recorded heal, it gives up. Its use is to put a chosen heal
 * in front of the sandbox and HealGuard exactly as written, e.g. a deliberately unsafe one.
 */
@ApplicationScoped
public class ReplayAgent implements HealingAgent {

    public static final String NAME = "replay";
    static final String DIR_PROPERTY = "healbench.agent.replay-dir";

    private final Optional<Path> dir;
    /** The heal set of each running attempt, by attempt id; dropped when the attempt ends. */
    private final Map<String, HealSet> byAttempt = new ConcurrentHashMap<>();

    @Inject
    public ReplayAgent(AgentSettings settings) {
        this(settings.replayDir());
    }

    ReplayAgent(Optional<Path> dir) {
        this.dir = dir;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public void attemptStarted(AttemptSpec spec) {
        Path heals = dir.orElseThrow(() -> new HealSetException(
                "the replay agent has no heal sets: " + DIR_PROPERTY + " is not configured (the cli sets it with --heals DIR)"));
        byAttempt.put(spec.attemptId(), HealSet.forInstance(heals, spec.instanceId()));
    }

    @Override
    public AgentDecision decide(HealPoint point) {
        HealSet set = byAttempt.get(point.attemptId());
        if (set == null) {
            throw new IllegalStateException("attempt " + point.attemptId() + " was not started with the replay agent");
        }
        int healPoint = point.crash().healPoint();
        List<RejectedHeal> rejected = point.rejected();
        if (!rejected.isEmpty()) {
            return new Reraise("the recorded heal for heal point " + healPoint + " was refused: "
                    + rejected.get(rejected.size() - 1).reason());
        }
        if (healPoint < 1 || healPoint > set.heals().size()) {
            return new Reraise("no recorded heal for heal point " + healPoint + ": " + set.file() + " holds "
                    + set.heals().size());
        }
        return set.heals().get(healPoint - 1);
    }

    @Override
    public AgentRecord attemptEnded(String attemptId) {
        byAttempt.remove(attemptId);
        return AgentRecord.NONE;
    }
}
