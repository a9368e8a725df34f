package io.healbench.sandbox.service.reference;

import io.healbench.common.dataset.Instance;
import io.healbench.sandbox.service.model.Variant;

/**
 * What recording a reference run needs of the session machinery: one session run to its end without interception.
 * The session machinery implements it; it also compares its BUGGY runs with the reference runs recorded here, so
 * naming it directly would make the two packages need each other.
 */
public interface SessionLauncher {

    /**
     * Runs the instance's variant without interception to its end, outside the live-session limit, and closes the
     * session. The caller bounds how many of these run at once.
     */
    UnattendedRun runUnattended(Instance instance, Variant variant);
}
