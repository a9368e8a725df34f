package io.healbench.proto.outcome.v1;

import io.healbench.common.heal.Resume;

/** The one mapping between a heal's resume ({@code io.healbench.common.heal.Resume}) and its message enum. */
public final class ResumeModes {

    private ResumeModes() {}

    /** The enums share their constants' names; the message's unset value is never sent. */
    public static ResumeMode of(Resume resume) {
        return ResumeMode.valueOf(resume.name());
    }

    /**
     * A received resume: unset is {@link Resume#SKIP}, as everywhere.
     *
     * @throws IllegalArgumentException for a number this proto does not name (a newer peer's), which is never taken for a
     *         skip: the caller refuses the request
     */
    public static Resume resume(ResumeMode mode) {
        return switch (mode) {
            case SKIP, RESUME_MODE_UNSPECIFIED -> Resume.SKIP;
            case RETRY -> Resume.RETRY;
            case RETURN -> Resume.RETURN;
            case UNRECOGNIZED -> throw new IllegalArgumentException("resume must be SKIP, RETRY or RETURN");
        };
    }
}
