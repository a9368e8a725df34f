package io.healbench.agent.messaging;

import io.healbench.agent.service.AttemptSpec;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.smallrye.reactive.messaging.TracingMetadata;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.reactive.messaging.Message;

/**
 * One trace per attempt (docs/deploy-observability.md, "Traces"). An attempt runs on a worker thread of its own, where
 * the trace context of the message that asked for it does not follow; its span is made current there, so that its
 * sandbox calls and its events carry it to sandbox-service, guard-service and bench-service. The span starts a trace
 * and links to the message's: as the message's child, an attempt would join the trace of whatever queued it, one for
 * many attempts.
 */
@ApplicationScoped
public class AttemptTraces {

    private final Tracer tracer;

    public AttemptTraces(Tracer tracer) {
        this.tracer = tracer;
    }

    /** Runs the attempt's {@code work}, on the calling thread, in the attempt's span. */
    public void inAttemptSpan(Message<?> request, AttemptSpec spec, Runnable work) {
        var span = tracer.spanBuilder("attempt")
                .setNoParent()
                .setSpanKind(SpanKind.CONSUMER)
                .setAttribute("healbench.attempt.id", spec.attemptId())
                .setAttribute("healbench.run.id", spec.runId())
                .setAttribute("healbench.instance.id", spec.instanceId())
                .setAttribute("healbench.agent", spec.agent());
        TracingMetadata.fromMessage(request)
                .map(TracingMetadata::getCurrentContext)
                .map(Span::fromContext)
                .map(Span::getSpanContext)
                .filter(SpanContext::isValid)
                .ifPresent(span::addLink);
        Span attempt = span.startSpan();
        try (Scope ignored = attempt.makeCurrent()) {
            work.run();
        } finally {
            attempt.end();
        }
    }
}
