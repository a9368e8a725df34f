package io.healbench.proto.outcome.v1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.healbench.common.heal.Resume;
import org.junit.jupiter.api.Test;

/** Every service reads and writes a heal's resume through ResumeModes: each value goes and comes back as itself. */
class ResumeModesTest {

    @Test
    void everyResumeSurvivesTheMessage() {
        for (Resume resume : Resume.values()) {
            assertEquals(resume, ResumeModes.resume(ResumeModes.of(resume)));
        }
    }

    @Test
    void unsetIsSkipAndANumberThisProtoDoesNotNameIsRefused() {
        assertEquals(Resume.SKIP, ResumeModes.resume(ResumeMode.RESUME_MODE_UNSPECIFIED));
        assertThrows(IllegalArgumentException.class, () -> ResumeModes.resume(ResumeMode.UNRECOGNIZED));
    }
}
