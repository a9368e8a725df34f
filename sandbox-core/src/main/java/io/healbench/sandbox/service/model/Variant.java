package io.healbench.sandbox.service.model;

/** Which code a session runs: the subject with the bug patch, or the reference (fix patch, or no bug patch). */
public enum Variant { BUGGY, REFERENCE }
