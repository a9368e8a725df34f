package io.healbench.guard.service.gate;

/** The submitted code is larger than the gate accepts; it was not parsed. */
public class HealCodeTooLargeException extends RuntimeException {

    private final long sizeBytes;
    private final long limitBytes;

    public HealCodeTooLargeException(String reason, long sizeBytes, long limitBytes) {
        super(reason + ": " + sizeBytes + " bytes (UTF-8), limit " + limitBytes);
        this.sizeBytes = sizeBytes;
        this.limitBytes = limitBytes;
    }

    public long sizeBytes() {
        return sizeBytes;
    }

    public long limitBytes() {
        return limitBytes;
    }
}
