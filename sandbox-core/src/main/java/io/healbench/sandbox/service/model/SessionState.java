package io.healbench.sandbox.service.model;

/** Life cycle of a session; CRASHED means paused at a crash, waiting for probe, heal or reraise. */
public enum SessionState { STARTING, RUNNING, CRASHED, FINISHED, CLOSED }
