package io.healbench.bench.service;

import io.healbench.bench.repository.BenchAttemptEvent;
import java.util.List;

/** A page of an attempt's stored events; {@code nextPageToken} is empty on the last page. */
public record BenchEventPage(List<BenchAttemptEvent> events, String nextPageToken) {}
