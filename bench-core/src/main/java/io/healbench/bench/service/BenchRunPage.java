package io.healbench.bench.service;

import io.healbench.bench.repository.BenchRun;
import java.util.List;

/** A page of a tenant's runs, newest first; {@code nextPageToken} is empty on the last page. */
public record BenchRunPage(List<BenchRun> runs, String nextPageToken) {}
