package io.healbench.proto.sandbox.v1;

import io.healbench.common.heal.Resume;

/** The one mapping from a heal's resume ({@code io.healbench.common.heal.Resume}) to its message enum. */
public final class ResumeModes {

    private ResumeModes() {}

    /** The enums share their constants' names; the message's unset value is never sent. */
    public static ResumeMode of(Resume resume) {
        return ResumeMode.valueOf(resume.name());
    }
}
